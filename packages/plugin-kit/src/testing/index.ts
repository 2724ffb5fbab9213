/** `@svc/plugin-kit/testing`: tools for testing a plugin without a real directory. */
export {
  createTestIssuer,
  type MintClaims,
  type TestIssuer,
  type TestIssuerAlg,
} from './test-issuer.ts';
