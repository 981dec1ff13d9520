// autocannon ships no types; this covers what bench/cache-load.ts and bench/cache-hits.ts use.
declare module 'autocannon' {
  namespace autocannon {
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      p50: number;
      p90: number;
      p99: number;
      total: number;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      workers?: number;
      pipelining?: number;
      headers?: Record<string, string>;
      timeout?: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      throughput: Histogram;
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      '2xx': number;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
