// Dispatches like the Next.js App Router for `app/**/route.ts` files: the folder is the URL
// pattern (`[...name]` = one or more segments, `[[...name]]` = zero or more), the export named
// like the method answers with `(request, { params })`, HEAD falls back to GET, OPTIONS answers
// Allow, other methods 405.
type RouteHandler = (
  request: Request,
  context: { params: Promise<Record<string, string[]>> },
) => Response | Promise<Response>;
export type RouteModule = { [method: string]: unknown };

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function nextRouter(
  routes: Record<string, RouteModule>,
): (request: Request) => Promise<Response> {
  const table = Object.entries(routes).map(([folder, module]) => ({
    match: pattern(folder),
    module,
  }));
  return async (request) => {
    const { pathname } = new URL(request.url);
    for (const { match, module } of table) {
      const params = match(pathname);
      if (!params) continue;
      const name = request.method === 'HEAD' && !module.HEAD ? 'GET' : request.method;
      const handler = module[name] as RouteHandler | undefined;
      if (handler) return handler(request, { params: Promise.resolve(params) });
      const allow = METHODS.filter((method) => module[method] || method === 'OPTIONS').join(', ');
      return new Response(null, {
        status: request.method === 'OPTIONS' ? 204 : 405,
        headers: { allow },
      });
    }
    return new Response('Not Found', { status: 404 });
  };
}

function pattern(folder: string): (pathname: string) => Record<string, string[]> | undefined {
  const names: string[] = [];
  let source = '';
  for (const segment of folder.split('/')) {
    const optional = /^\[\[\.\.\.(\w+)\]\]$/.exec(segment);
    const catchAll = /^\[\.\.\.(\w+)\]$/.exec(segment);
    if (optional) {
      names.push(optional[1]!);
      source += '(?:/(.*))?'; // zero or more segments: the folder's own path matches too
    } else if (catchAll) {
      names.push(catchAll[1]!);
      source += '/(.+)';
    } else {
      source += `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    }
  }
  const regex = new RegExp(`^${source}$`);
  return (pathname) => {
    const match = regex.exec(pathname);
    if (!match) return undefined;
    return Object.fromEntries(
      names.map((name, i) => [name, (match[i + 1] ?? '').split('/').filter((s) => s !== '')]),
    );
  };
}
