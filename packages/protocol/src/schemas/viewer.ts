/** The web viewer's login links and sessions (docs/api-v1.md "Viewer"). */
import { z } from 'zod';
import { timestampSchema } from './common.ts';

export const viewerLinkSchema = z.object({
  url: z
    .url()
    .describe("the TCP listener's /viewer/login?code=…: opens one session, once, within 60 s"),
  expires_at: timestampSchema,
});

/** The answer of `POST /v1/viewer/links`: a one-time login link for the person's browser. */
export type ViewerLink = z.output<typeof viewerLinkSchema>;

export const viewerLogoutSchema = z.object({
  revoked: z.boolean().describe("whether a viewer session (the request's cookie) was revoked"),
});
