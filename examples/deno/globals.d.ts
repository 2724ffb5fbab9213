// The Deno globals main.ts uses, declared so `tsc` checks the example without Deno's own types
// (Deno itself ignores this file).
declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(
    options: {
      hostname?: string;
      port?: number;
      onListen?(address: { hostname: string; port: number }): void;
    },
    handler: (request: Request) => Response | Promise<Response>,
  ): unknown;
};
