/** A scope string outside the vocabulary, or a scope list that breaks a list rule. */
export class ScopeError extends TypeError {
  /** The offending scope string, as given. */
  readonly scope: string;
  /** One sentence naming the scope and what is wrong; also the `message`. */
  readonly reason: string;

  constructor(scope: string, reason: string) {
    super(reason);
    this.name = 'ScopeError';
    this.scope = scope;
    this.reason = reason;
  }
}
