/**
 * The built-in tools a broker offers, by name and in its order, spelled out here once for the
 * tests that assert them (not read from the source: a test of the list must be able to fail).
 */

/** Offered to every node, whatever its scopes. */
export const TOOLS_ALWAYS = [
  'wait',
  'yield',
  'report',
  'submit',
  'memory_read',
  'memory_list',
  'memory_write',
];

/** What `svc:act` adds, offered before the others. */
export const TOOLS_OF_ACT = [
  'bash',
  'read_file',
  'write_file',
  'list_files',
  'spawn',
  'message',
  'ask_human',
];
