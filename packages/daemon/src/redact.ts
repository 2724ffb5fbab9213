/**
 * `text` with every secret of `secrets` blanked: a provider's error may echo the key it was sent
 * (a proxy quoting the Authorization header), and such a message is answered, recorded and logged.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret !== '') out = out.replaceAll(secret, '[redacted]');
  }
  return out;
}
