import type { Hono } from 'hono';
import { modelReadiness } from '../services/readiness.ts';
import type { AppEnv } from './env.ts';
import { mount } from './route.ts';

export function registerReadiness(app: Hono<AppEnv>): void {
  mount(app, 'readiness.get', (c) => c.json(modelReadiness()));
}
