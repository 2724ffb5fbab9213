/** The sandbox's pure rules: the layer order and view, and the proxy's domain match. */
import { describe, expect, it } from 'vitest';
import { grantNetwork, networkWithin } from '../../src/sandbox/network-grant.ts';
import { hostAllowed } from '../../src/sandbox/proxy.ts';
import { orderLayers, scopeLayers, viewAllows } from '../../src/sandbox/view.ts';

describe('the view', () => {
  const layers = orderLayers([
    { path: '/home/me', kind: 'ro' },
    { path: '/home/me/.svc', kind: 'hide' },
    { path: '/home/me/.svc/worktrees/nd_1', kind: 'rw' },
    { path: '/home/me/src', kind: 'rw' },
    { path: '/home/me/.ssh', kind: 'hide' },
  ]);
  it('is decided by the deepest layer holding the path', () => {
    expect(viewAllows(layers, '/home/me/notes.md', 'read')).toBe(true);
    expect(viewAllows(layers, '/home/me/notes.md', 'rw')).toBe(false);
    expect(viewAllows(layers, '/home/me/src/a.ts', 'rw')).toBe(true);
    expect(viewAllows(layers, '/home/me/.svc/owner.token', 'read')).toBe(false);
    expect(viewAllows(layers, '/home/me/.svc/worktrees/nd_1/x', 'rw')).toBe(true);
    expect(viewAllows(layers, '/home/me/.svc/worktrees/nd_2/x', 'read')).toBe(false);
    expect(viewAllows(layers, '/home/me/.ssh/id_ed25519', 'read')).toBe(false);
    expect(viewAllows(layers, '/etc/passwd', 'read')).toBe(false);
  });
  it('mounts shallower paths first, and at one path a hide wins over a bind, rw over ro', () => {
    expect(layers.map((l) => l.path)).toEqual([
      '/home/me',
      '/home/me/.svc',
      '/home/me/src',
      '/home/me/.ssh',
      '/home/me/.svc/worktrees/nd_1',
    ]);
    expect(
      orderLayers([
        { path: '/a', kind: 'hide' },
        { path: '/a', kind: 'rw' },
      ]),
    ).toEqual([{ path: '/a', kind: 'hide' }]);
    expect(
      orderLayers([
        { path: '/a', kind: 'rw' },
        { path: '/a', kind: 'ro' },
      ]),
    ).toEqual([{ path: '/a', kind: 'rw' }]);
  });
  it("binds a scope list's user files scopes, and its own app's app forms", () => {
    expect(
      scopeLayers(['svc:files:rw:app:notes:/x', 'svc:files:read:app:other:/y'], 'notes'),
    ).toEqual([{ path: '/x', kind: 'rw' }]);
    expect(
      scopeLayers([
        'svc:llm',
        'svc:files:read:user:/data',
        'svc:files:rw:user:/work',
        'svc:files:rw:app:notes:/x',
      ]),
    ).toEqual([
      { path: '/data', kind: 'ro' },
      { path: '/work', kind: 'rw' },
    ]);
  });
});

describe("the proxy's domains", () => {
  it('matches a name exactly, or the names below a *. pattern', () => {
    const allow = ['github.com', '*.pypi.org'];
    expect(hostAllowed(allow, 'github.com')).toBe(true);
    expect(hostAllowed(allow, 'GitHub.com.')).toBe(true);
    expect(hostAllowed(allow, 'api.github.com')).toBe(false);
    expect(hostAllowed(allow, 'files.pypi.org')).toBe(true);
    expect(hostAllowed(allow, 'pypi.org')).toBe(false);
    expect(hostAllowed(allow, 'evilpypi.org')).toBe(false);
    expect(hostAllowed(allow, 'github.com.evil.net')).toBe(false);
  });
});

describe('what network a creator may give', () => {
  it('none ⊂ a list ⊂ host; a list within a list when each domain is allowed', () => {
    const list = { allow: ['github.com', '*.pypi.org'] };
    expect(networkWithin('none', 'none')).toBe(true);
    expect(networkWithin(list, 'host')).toBe(true);
    expect(networkWithin('host', list)).toBe(false);
    expect(networkWithin(list, 'none')).toBe(false);
    expect(networkWithin({ allow: ['files.pypi.org', '*.a.pypi.org'] }, list)).toBe(true);
    expect(networkWithin({ allow: ['pypi.org'] }, list)).toBe(false);
    expect(networkWithin({ allow: ['*.github.com'] }, list)).toBe(false);
  });
  it('the owner gives any; others at most theirs, else 403 naming network', () => {
    expect(grantNetwork('host', null)).toBe('host');
    expect(grantNetwork(undefined, 'none')).toBeUndefined();
    expect(() => grantNetwork('host', 'none')).toThrow(/more than this creator may give/);
  });
});
