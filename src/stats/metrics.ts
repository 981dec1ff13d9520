import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolState } from '../browser/pool.js';

/** What the metrics read from the parts they describe, when scraped. */
export interface MetricsSources {
  readonly renderPool: () => PoolState;
  readonly extractors: () => { readonly busy: number; readonly queued: number };
  /** Async jobs waiting, across every process sharing the database. */
  readonly jobsQueued: () => Promise<number>;
}

/**
 * The service's Prometheus metrics, on a registry of its own (several runtimes in one process, as
 * in tests, do not share counters). Requests are counted as they end (http/access-log.ts); pool gauges
 * and counters are read from the pools when scraped.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'engine' | 'status'>;
  private readonly durations: Histogram<'engine'>;
  private readonly billed: Counter<'engine'>;
  private readonly jobs: Counter<'engine' | 'outcome'>;
  private readonly webhooks: Counter<'outcome'>;
  /**
   * The labelled series of each engine and status, taken once: labelling a series anew hashes its
   * labels, which cost more per request than the counting (docs/performance.md, "Where a cache
   * hit's time goes"). Bounded by the engines times the statuses answered.
   */
  private readonly series = new Map<
    string,
    { requests: Counter.Internal; durations: Histogram.Internal<'engine'>; billed: Counter.Internal | null }
  >();

  constructor(
    /** Read again by the operator console's health, so that it shows what /metrics does. */
    readonly sources: MetricsSources,
  ) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'webcap_' });
    this.requests = new Counter({
      name: 'webcap_requests_total',
      help: 'Answered requests by engine (route family, "other" outside the catalog) and HTTP status',
      labelNames: ['engine', 'status'],
      registers,
    });
    this.durations = new Histogram({
      name: 'webcap_request_duration_seconds',
      help: 'Time to answer a request, by engine',
      labelNames: ['engine'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.billed = new Counter({
      name: 'webcap_billed_units_total',
      help: 'Units billed to accounts, by engine',
      labelNames: ['engine'],
      registers,
    });
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    // Counters kept by the pool itself, exposed as counters: they only grow.
    const counter = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    gauge('webcap_render_pool_busy', 'Renders running now', () => sources.renderPool().busy);
    gauge('webcap_render_pool_queued', 'Calls waiting for a render', () => sources.renderPool().queued);
    counter(
      'webcap_render_pool_rejected_total',
      'Calls turned away by a full render queue or a wait past its deadline',
      () => sources.renderPool().rejected,
    );
    counter(
      'webcap_browser_launches_total',
      'Browsers launched (first, recycled, after a crash)',
      () => sources.renderPool().launches,
    );
    counter(
      'webcap_browser_crashes_total',
      'Browsers that disconnected unasked',
      () => sources.renderPool().crashes,
    );
    this.jobs = new Counter({
      name: 'webcap_jobs_total',
      help: 'Async jobs ended by this process, by engine and outcome (completed, failed)',
      labelNames: ['engine', 'outcome'],
      registers,
    });
    this.webhooks = new Counter({
      name: 'webcap_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered: a 2xx answer; failed: anything else)',
      labelNames: ['outcome'],
      registers,
    });
    new Gauge({
      name: 'webcap_jobs_queued',
      help: 'Async jobs waiting in the queue, across processes',
      registers,
      async collect() {
        this.set(await sources.jobsQueued());
      },
    });
    gauge('webcap_extractor_busy', 'Extractor threads working now', () => sources.extractors().busy);
    gauge(
      'webcap_extractor_queued',
      'Page extractions waiting for a thread',
      () => sources.extractors().queued,
    );
  }

  /** One answered request. */
  observe(engine: string, status: number, seconds: number, billed: boolean): void {
    const name = `${engine} ${status}`;
    let series = this.series.get(name);
    if (series === undefined) {
      series = {
        requests: this.requests.labels({ engine, status: String(status) }),
        durations: this.durations.labels({ engine }),
        billed: null,
      };
      this.series.set(name, series);
    }
    series.requests.inc();
    series.durations.observe(seconds);
    // Taken only once billed, so that an engine never billed shows no billed series.
    if (billed) {
      series.billed ??= this.billed.labels({ engine });
      series.billed.inc();
    }
  }

  /** One async job ended. */
  observeJob(engine: string, outcome: 'completed' | 'failed'): void {
    this.jobs.inc({ engine, outcome });
  }

  /** One webhook delivery attempt. */
  observeWebhook(outcome: 'delivered' | 'failed'): void {
    this.webhooks.inc({ outcome });
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
