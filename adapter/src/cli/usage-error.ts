import { InvalidArgumentError } from 'commander';

/** A command line that cannot be run as given: one line on stderr, exit status 2 (DESIGN §7). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Option parser for a whole number ≥ `min` (commander reports a bad value as a usage error). */
export function wholeNumber(flag: string, min = 0) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min) throw new InvalidArgumentError(`${flag} needs a whole number${min > 0 ? ` ≥ ${min}` : ''}, got "${value}"`);
    return Number(value);
  };
}
