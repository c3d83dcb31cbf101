/** The `x11` package ships no types; x11-capture.ts declares the parts it uses. */
declare module 'x11';
