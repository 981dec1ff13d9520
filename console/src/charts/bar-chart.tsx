import { axisTicks, seriesOf, stackedBars } from './chart-scale.ts';

export interface ChartColumn {
  /** The column's label: a date. */
  readonly label: string;
  readonly values: Readonly<Record<string, number>>;
}

/** Series with a color of their own; any other takes one of the spare colors by position. */
const SERIES_COLORS: Readonly<Record<string, string>> = {
  capture: 'c1',
  content: 'c2',
  analyze: 'c3',
  'website-crawler': 'c4',
  usage: 'c5',
  stats: 'c6',
  jobs: 'c7',
  '2xx': 'ok',
  '3xx': 'c5',
  '4xx': 'warn',
  '5xx': 'bad',
};

const SPARE = ['c8', 'c9', 'c10'];

function colorOf(series: string, index: number): string {
  return SERIES_COLORS[series] ?? SPARE[index % SPARE.length] ?? 'c8';
}

const WIDTH = 600;
const HEIGHT = 160;

/**
 * Stacked bars per day, drawn as SVG: the bars stretch with the box while the axis labels and the
 * legend are HTML, so they stay readable at any width. The numbers are also in a table under
 * "Show the numbers", and each bar says its values on hover (<title>).
 */
export function BarChart({
  title,
  columns,
  order,
}: {
  readonly title: string;
  readonly columns: readonly ChartColumn[];
  readonly order: readonly string[];
}) {
  const series = seriesOf(
    columns.map((c) => c.values),
    order,
  );
  const bars = stackedBars(
    columns.map((c) => c.values),
    series,
    WIDTH,
    HEIGHT,
  );
  const ticks = axisTicks(bars.top).reverse();
  const total = columns.reduce((sum, c) => sum + Object.values(c.values).reduce((a, b) => a + b, 0), 0);
  const first = columns[0]?.label ?? '';
  const last = columns[columns.length - 1]?.label ?? '';
  return (
    <figure class="chart">
      <figcaption class="chart-title">
        {title}
        <span class="chart-total">{total.toLocaleString('en-US')} in all</span>
      </figcaption>
      <div class="chart-body">
        <div class="chart-axis" aria-hidden="true">
          {ticks.map((tick) => (
            <span key={tick}>{tick.toLocaleString('en-US')}</span>
          ))}
        </div>
        <svg
          class="chart-plot"
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={`${title}: ${total} from ${first} to ${last}`}
        >
          {ticks.map((tick) => {
            const y = HEIGHT - (tick / bars.top) * HEIGHT;
            return (
              <line
                key={tick}
                class="chart-grid"
                x1={0}
                x2={WIDTH}
                y1={y}
                y2={y}
                vector-effect="non-scaling-stroke"
              />
            );
          })}
          {bars.columns.map((column, index) => {
            const label = columns[index]?.label ?? '';
            const parts = column.rects.map((r) => `${r.series} ${r.value}`).join(', ');
            return (
              <g key={label}>
                <title>{`${label}: ${column.total}${parts === '' ? '' : ` (${parts})`}`}</title>
                {column.rects.map((rect) => (
                  <rect
                    key={rect.series}
                    class={`fill-${colorOf(rect.series, series.indexOf(rect.series))}`}
                    x={rect.x}
                    y={rect.y}
                    width={rect.width}
                    height={rect.height}
                  />
                ))}
              </g>
            );
          })}
        </svg>
        <div class="chart-dates" aria-hidden="true">
          <span>{first}</span>
          <span>{last}</span>
        </div>
      </div>
      {series.length === 0 ? (
        <p class="chart-empty">No calls in these days.</p>
      ) : (
        <ul class="chart-legend">
          {series.map((name, index) => (
            <li key={name}>
              <span class={`swatch fill-${colorOf(name, index)}`} aria-hidden="true" />
              {name}
            </li>
          ))}
        </ul>
      )}
      <details class="chart-numbers">
        <summary>Show the numbers</summary>
        <div class="table-wrap">
          <table class="table compact">
            <thead>
              <tr>
                <th scope="col">Date</th>
                {series.map((name) => (
                  <th key={name} scope="col">
                    {name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {columns.map((column) => (
                <tr key={column.label}>
                  <th scope="row">{column.label}</th>
                  {series.map((name) => (
                    <td key={name} class="num" data-label={name}>
                      {column.values[name] ?? 0}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

/** A horizontal bar of `used` out of `total`, as an SVG (no inline style). */
export function UsageBar({
  used,
  total,
  label,
}: {
  readonly used: number;
  readonly total: number;
  readonly label: string;
}) {
  const share = total <= 0 ? 0 : Math.min(1, used / total);
  return (
    <svg class="usage-bar" viewBox="0 0 100 6" preserveAspectRatio="none" role="img" aria-label={label}>
      <rect class="usage-bar-track" x={0} y={0} width={100} height={6} rx={3} />
      {share > 0 && (
        <rect
          class={share >= 0.9 ? 'usage-bar-fill high' : 'usage-bar-fill'}
          x={0}
          y={0}
          width={share * 100}
          height={6}
          rx={3}
        />
      )}
    </svg>
  );
}
