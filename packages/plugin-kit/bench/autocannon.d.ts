// The part of autocannon's API the load generator uses (the package ships no types).
declare module 'autocannon' {
  type Histogram = { average: number; total: number; p99: number };
  type Request = {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: { headers?: Record<string, string> }) => object;
  };
  type Options = {
    url: string;
    connections: number;
    duration: number;
    warmup?: { connections: number; duration: number };
    requests?: Request[];
  };
  type Result = {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    timeouts: number;
    '2xx': number;
    '3xx': number;
    '4xx': number;
    '5xx': number;
  };
  export default function autocannon(options: Options): Promise<Result>;
}
