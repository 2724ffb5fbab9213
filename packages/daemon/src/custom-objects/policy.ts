/** How url and argv receivers are retried, and the wait before each next attempt. */

export interface DeliveryPolicy {
  /** Attempts in all, the first included; then the delivery is `failed`. Default 8. */
  maxAttempts: number;
  /** The wait after the first failed attempt; each next one is 4 times longer. Default 5 s. */
  retryBaseMs: number;
  /** The longest wait between attempts. Default 1 h. */
  retryMaxMs: number;
  /** How long one POST or one program run may take before it counts as failed. Default 30 s. */
  attemptTimeoutMs: number;
}

export const DEFAULT_DELIVERY_POLICY: Readonly<DeliveryPolicy> = Object.freeze({
  maxAttempts: 8,
  retryBaseMs: 5_000,
  retryMaxMs: 60 * 60_000,
  attemptTimeoutMs: 30_000,
});

const BACKOFF_FACTOR = 4;

/** The defaults with what the daemon's options set; each a positive integer, or a TypeError. */
export function deliveryPolicy(given: Partial<DeliveryPolicy> | undefined): DeliveryPolicy {
  const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, ...definedOnly(given ?? {}) };
  for (const [key, value] of Object.entries(policy)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new TypeError(`objects.${key} must be a positive integer; received ${value}`);
    }
  }
  return policy;
}

/** The wait before attempt `attempts + 1`, after `attempts` failed ones. */
export function retryDelayMs(policy: DeliveryPolicy, attempts: number): number {
  const exponent = Math.max(0, attempts - 1);
  return Math.min(policy.retryBaseMs * BACKOFF_FACTOR ** exponent, policy.retryMaxMs);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
