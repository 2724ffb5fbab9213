export interface ProviderReadiness {
  provider: string;
  ready: boolean;
  reason?: string;
}

/**
 * Which model providers have usable credentials. None are configured in this stage; the model
 * credentials resource fills this in.
 */
export function modelReadiness(): { providers: ProviderReadiness[] } {
  return { providers: [] };
}
