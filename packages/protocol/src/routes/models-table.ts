/**
 * Profiles, model credentials and configuration, and the daemon-mediated model call. Credential
 * and configuration changes are the owner's; no answer here carries credential material.
 */
import { listOf, listQuerySchema, okSchema } from '../schemas/common.ts';
import { llmBodySchema, llmResponseSchema } from '../schemas/llm.ts';
import {
  credentialInstallBodySchema,
  credentialParamsSchema,
  modelConfigBodySchema,
  modelConfigSchema,
  modelCredentialSchema,
} from '../schemas/models.ts';
import {
  profileEnsureBodySchema,
  profileEnvParamsSchema,
  profileEnvSetBodySchema,
  profileParamsSchema,
  profileSchema,
} from '../schemas/profiles.ts';
import type { RouteDef } from './route-def.ts';

const TOKEN = { kind: 'token' } as const;
const OWNER = { kind: 'owner' } as const;

export const modelRoutes = [
  {
    id: 'profiles.ensure',
    method: 'PUT',
    path: '/v1/profiles/{name}',
    auth: TOKEN,
    summary: 'Create the profile or update the fields given (an app only its own profiles)',
    params: profileParamsSchema,
    body: profileEnsureBodySchema,
    response: profileSchema,
  },
  {
    id: 'profiles.retrieve',
    method: 'GET',
    path: '/v1/profiles/{name}',
    auth: TOKEN,
    summary: 'Get a profile (env names only, never values)',
    params: profileParamsSchema,
    response: profileSchema,
  },
  {
    id: 'profiles.list',
    method: 'GET',
    path: '/v1/profiles',
    auth: TOKEN,
    summary: 'List the profiles the caller may use, by name',
    query: listQuerySchema,
    response: listOf(profileSchema),
    page: { cursor: 'name' },
  },
  {
    id: 'profiles.env.set',
    method: 'PUT',
    path: '/v1/profiles/{name}/env/{var}',
    auth: OWNER,
    summary: 'Store a value in the profile env store for brokers; it is never answered',
    params: profileEnvParamsSchema,
    body: profileEnvSetBodySchema,
    response: profileSchema,
  },
  {
    id: 'profiles.env.delete',
    method: 'DELETE',
    path: '/v1/profiles/{name}/env/{var}',
    auth: OWNER,
    summary: 'Remove a value from the profile env store',
    params: profileEnvParamsSchema,
    response: profileSchema,
  },
  {
    id: 'models.credentials.list',
    method: 'GET',
    path: '/v1/model-auth',
    auth: OWNER,
    summary: 'Stored model credentials: provider, base URL, whether a key is held (never the key)',
    response: listOf(modelCredentialSchema),
    page: { cursor: null },
  },
  {
    id: 'models.credentials.install',
    method: 'POST',
    path: '/v1/model-auth/{provider}',
    auth: OWNER,
    summary: "Store (or replace) a provider's API key and base URL",
    params: credentialParamsSchema,
    body: credentialInstallBodySchema,
    response: modelCredentialSchema,
  },
  {
    id: 'models.credentials.remove',
    method: 'DELETE',
    path: '/v1/model-auth/{provider}',
    auth: OWNER,
    summary: "Forget a provider's credentials",
    params: credentialParamsSchema,
    response: okSchema,
  },
  {
    id: 'models.config.retrieve',
    method: 'GET',
    path: '/v1/model-config',
    auth: TOKEN,
    summary: 'The default model and the per-profile overrides',
    response: modelConfigSchema,
  },
  {
    id: 'models.config.update',
    method: 'PUT',
    path: '/v1/model-config',
    auth: OWNER,
    summary: 'Replace the default model and the per-profile overrides',
    body: modelConfigBodySchema,
    response: modelConfigSchema,
  },
  {
    id: 'llm.create',
    method: 'POST',
    path: '/v1/llm',
    auth: { kind: 'scope', scope: 'svc:llm' },
    summary: 'One model call made by the daemon with its stored credentials (no tools)',
    body: llmBodySchema,
    response: llmResponseSchema,
    errors: ['not_found', 'invalid_state', 'rate_limited'],
  },
] as const satisfies readonly RouteDef[];
