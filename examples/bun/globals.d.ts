// The one Bun global server.ts uses, declared so `tsc` checks the example without @types/bun
// (delete this file if you install @types/bun).
declare const Bun: {
  serve(options: {
    hostname?: string;
    port?: number;
    fetch(request: Request): Response | Promise<Response>;
  }): { port: number };
};
