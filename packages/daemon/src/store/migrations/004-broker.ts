/** What the broker control plane and the supervisor keep beyond the node tables. */
export const sql = `
`;
