/**
 * The network of a sandboxed command (docs/security.md, "The sandbox"): `none` (its own
 * loopback only), `host` (the machine's network), or `{allow}`: only the listed domains, reached
 * through a filtering proxy its node's broker runs (HTTP and HTTPS `CONNECT`, as programs that
 * honour `http_proxy` / `https_proxy` use it).
 */
import { z } from 'zod';

/** `example.com`, or `*.example.com` for every name below it (not itself). Lowercase. */
export const domainPatternSchema = z
  .string()
  .max(253)
  .regex(/^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/)
  .describe('a domain, or *. and a domain for its subdomains; lowercase');

export const networkPolicySchema = z.union([
  z.enum(['none', 'host']),
  z.strictObject({
    allow: z
      .array(domainPatternSchema)
      .min(1)
      .max(256)
      .describe('the domains its commands may reach, through the sandbox proxy'),
  }),
]);

export type NetworkPolicy = z.output<typeof networkPolicySchema>;
