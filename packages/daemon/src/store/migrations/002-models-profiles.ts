/** Model credentials, model configuration, profiles and their env stores. */
export const sql = `
`;
