/**
 * Minimal typings of `mvdan-sh` (GopherJS build of mvdan.cc/sh/v3/syntax): only what the command
 * policy uses. Nodes mirror the Go structs (https://pkg.go.dev/mvdan.cc/sh/v3/syntax); their
 * fields are read by name, `syntax.NodeType(node)` names the Go type. Positions are UTF-8 byte
 * offsets of the source.
 */
declare module 'mvdan-sh' {
  export interface ShPos {
    Offset(): number;
  }
  /** Any syntax node; fields depend on {@link ShSyntax.NodeType}. */
  export interface ShNode {
    Pos(): ShPos;
    End(): ShPos;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    [field: string]: any;
  }
  export interface ShParser {
    /** @throws a Go error object (`.Error()` gives `line:col: message`). */
    Parse(src: string, name: string): ShNode;
  }
  export interface ShSyntax {
    NewParser(...options: unknown[]): ShParser;
    Variant(lang: unknown): unknown;
    KeepComments(keep: boolean): unknown;
    LangBash: unknown;
    NodeType(node: ShNode): string;
    IsIncomplete(err: unknown): boolean;
    /** Calls `visit(node)` before a node's children and `visit(null)` after them. */
    Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
  }
  const sh: { syntax: ShSyntax };
  export default sh;
}
