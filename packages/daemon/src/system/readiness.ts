import { mount, type Routes } from '../http/route.ts';

/** `GET /v1/model-auth/readiness`: which model providers can answer now. */
export function registerReadiness(app: Routes, deps: { models: { readiness(): unknown } }): void {
  mount(app, 'readiness.get', (c) => c.json(deps.models.readiness()));
}
