/** Building answers: every one carries `Svc-Request-Id`; every error is the JSON envelope. */
import { errorText, type PluginError } from '../errors.ts';

export function json(
  status: number,
  body: unknown,
  requestId: string,
  headers?: Record<string, string>,
): Response {
  return jsonText(status, JSON.stringify(body), requestId, headers);
}

/** `json` for a body already serialized. */
export function jsonText(
  status: number,
  text: string,
  requestId: string,
  headers?: Record<string, string>,
): Response {
  // `REQUEST_ID_HEADER` spelled out: a literal with only constant keys is built from a template.
  // `content-type` in lower case: Node's server keys each header by its lower-cased name, and a
  // name that already is needs no new string. (`headers` must not bring another spelling of these.)
  const all = { 'content-type': 'application/json', 'Svc-Request-Id': requestId };
  return new Response(text, {
    status,
    headers: headers === undefined ? all : { ...all, ...headers },
  });
}

export function errorResponse(
  error: PluginError,
  requestId: string,
  headers?: Record<string, string>,
): Response {
  return jsonText(error.status, errorText(error, requestId), requestId, headers);
}
