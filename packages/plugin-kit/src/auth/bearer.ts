/** The credentials of `Authorization: Bearer <token>` (RFC 6750 §2.1; scheme case-insensitive). */
export function bearerToken(request: Request): string | null {
  const match = /^Bearer +([^\s]+) *$/i.exec(request.headers.get('authorization') ?? '');
  return match?.[1] ?? null;
}
