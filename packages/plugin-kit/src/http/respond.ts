/** Building answers: every one carries `Svc-Request-Id`; every error is the JSON envelope. */
import { errorEnvelope, type PluginError } from '../errors.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';

export function json(
  status: number,
  body: unknown,
  requestId: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', [REQUEST_ID_HEADER]: requestId, ...headers },
  });
}

export function errorResponse(
  error: PluginError,
  requestId: string,
  headers: Record<string, string> = {},
): Response {
  return json(error.status, errorEnvelope(error, requestId), requestId, headers);
}
