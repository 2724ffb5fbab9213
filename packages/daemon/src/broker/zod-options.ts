/**
 * How a broker has zod check what it parses (the daemon's answers, its launch message, tool
 * input): without the compiled fast path. Compiling a schema the first time it parses cost a new
 * broker 40–180 ms of CPU on its way to its first turn (the session's schema alone), where
 * checking without it takes a few; a broker parses a handful of values per turn, too few for the
 * compiled path to pay that back.
 */
export const JITLESS = { jitless: true } as const;
