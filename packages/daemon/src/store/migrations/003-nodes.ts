/** Nodes, runs, turns, tool calls, mail, reports and jobs. */
export const sql = `
`;
