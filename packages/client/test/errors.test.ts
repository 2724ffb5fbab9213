import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  Svc,
  SvcError,
  UnprocessableEntityError,
} from '../src/index.ts';
import { envelope, json, rejection, ScriptedServer } from './helpers/server.ts';

const server = new ScriptedServer();
let client: Svc;

beforeAll(async () => {
  client = new Svc({ baseUrl: await server.listen(), maxRetries: 0 });
});
afterAll(() => server.close());

describe('error mapping', () => {
  it.each([
    [400, 'invalid_request', BadRequestError],
    [401, 'unauthorized', AuthenticationError],
    [403, 'forbidden', PermissionDeniedError],
    [404, 'not_found', NotFoundError],
    [405, 'method_not_allowed', APIError],
    [409, 'invalid_state', ConflictError],
    [413, 'payload_too_large', PayloadTooLargeError],
    [422, 'validation_failed', UnprocessableEntityError],
    [429, 'rate_limited', RateLimitError],
    [500, 'internal_error', InternalServerError],
    [503, 'not_ready', InternalServerError],
  ] as const)('maps %i to its class', async (status, code, ErrorClass) => {
    server.reset((_req, res) => json(res, status, envelope(code, 'nope')));
    const error = await rejection(client.request('GET', '/v1/x'));
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(SvcError);
    expect(error.constructor).toBe(ErrorClass);
    expect(error).toMatchObject({ status, code, name: ErrorClass.name });
    expect(error.message).toBe(`${status} ${code}: nope`);
  });

  it('carries field, received, request id, headers and the error body', async () => {
    const body = envelope('scope_missing', 'needs svc:act', {
      field: 'svc:act',
      received: ['svc:llm'],
      request_id: 'req_from_body',
    });
    server.reset((_req, res) => json(res, 403, body, { 'svc-request-id': 'req_from_header' }));
    const error = await rejection(client.bash.run({ command: 'true', cwd: '/' }));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({
      code: 'scope_missing',
      field: 'svc:act',
      received: ['svc:llm'],
      requestId: 'req_from_body',
      error: body.error,
    });
    expect(error.headers?.get('svc-request-id')).toBe('req_from_header');
  });

  it('falls back to the Svc-Request-Id header and copes with a body that is no envelope', async () => {
    server.reset((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html', 'svc-request-id': 'req_h' });
      res.end('<h1>Bad gateway</h1>');
    });
    const error = await rejection(client.request('GET', '/v1/x'));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 502, code: 'http_error', requestId: 'req_h' });
    expect(error.error).toBe('<h1>Bad gateway</h1>');
    expect(error.message).toBe('502 <h1>Bad gateway</h1>');
    expect(error.field).toBeUndefined();

    server.reset((_req, res) => {
      res.writeHead(404);
      res.end();
    });
    const empty = await rejection(client.request('GET', '/v1/x'));
    expect(empty).toMatchObject({ status: 404, code: 'http_error', requestId: undefined });
    expect(empty.message).toBe('404 status code (no body)');
  });
});
