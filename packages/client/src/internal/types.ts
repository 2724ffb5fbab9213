/**
 * The parsed type of a protocol zod schema, without this package importing zod: the DTO types
 * come from the one definition the daemon validates with.
 */
export type Output<S extends { parse(value: unknown): unknown }> = ReturnType<S['parse']>;
