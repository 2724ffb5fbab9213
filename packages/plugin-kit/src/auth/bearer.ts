/** `Authorization: Bearer <token>` (RFC 6750 §2.1; the scheme is case-insensitive). */
const BEARER = /^Bearer +([^\s]+) *$/i; // one object: a literal in the function is one per call

/** The credentials of the `Authorization` field, or `null` when it holds no bearer token. */
export function bearerToken(request: Request): string | null {
  const field = request.headers.get('authorization');
  if (field === null) return null;
  return BEARER.exec(field)?.[1] ?? null;
}
