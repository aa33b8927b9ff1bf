// Matches over time above the results (GET /v1/artifacts/histogram). Drag
// across it to zoom the search to that stretch of time (a custom range in the
// URL); each bar's count and time show on hover.
import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';

export interface HistogramData {
  start: string | null;
  end: string | null;
  interval_seconds: number;
  buckets: Array<{ start: string; count: number }>;
  total: number;
}

const WIDTH = 1000;
const HEIGHT = 100;
/** A drag narrower than this (in chart units) is a click, not a zoom. */
const MIN_DRAG = 4;

const when = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

export function Histogram({ data, onZoom }: { data: HistogramData; onZoom: (fromIso: string, toIso: string) => void }) {
  const svg = useRef<SVGSVGElement>(null);
  const drag = useSignal<{ from: number; to: number } | null>(null);
  if (!data.start || !data.end || data.buckets.length === 0) return null;
  const start = Date.parse(data.start);
  const end = Date.parse(data.end);
  const span = Math.max(1, end - start);
  const interval = data.interval_seconds * 1000;
  const max = Math.max(...data.buckets.map((b) => b.count));
  const x = (ms: number) => ((ms - start) / span) * WIDTH;

  const chartX = (event: PointerEvent) => {
    const box = svg.current!.getBoundingClientRect();
    return Math.min(WIDTH, Math.max(0, ((event.clientX - box.left) / box.width) * WIDTH));
  };
  const atTime = (chart: number) => new Date(start + (chart / WIDTH) * span).toISOString();

  function finish() {
    const d = drag.value;
    drag.value = null;
    if (!d || Math.abs(d.to - d.from) < MIN_DRAG) return;
    onZoom(atTime(Math.min(d.from, d.to)), atTime(Math.max(d.from, d.to)));
  }

  return (
    <figure class="histogram">
      <svg
        ref={svg}
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Matches over time: ${data.total.toLocaleString()} from ${when.format(start)} to ${when.format(end)}, in ${data.buckets.length} buckets. Drag across to zoom.`}
        onPointerDown={(e) => {
          svg.current!.setPointerCapture(e.pointerId);
          const at = chartX(e);
          drag.value = { from: at, to: at };
        }}
        onPointerMove={(e) => drag.value && (drag.value = { ...drag.value, to: chartX(e) })}
        onPointerUp={finish}
        onPointerCancel={() => (drag.value = null)}
      >
        {data.buckets.map((b) => {
          const left = x(Date.parse(b.start));
          const width = Math.max(1, x(Date.parse(b.start) + interval) - left - 1);
          const height = Math.max(1, (b.count / max) * (HEIGHT - 4));
          return (
            <rect key={b.start} class="bar" x={left} y={HEIGHT - height} width={width} height={height}>
              <title>{`${b.count.toLocaleString()} at ${when.format(Date.parse(b.start))}`}</title>
            </rect>
          );
        })}
        {drag.value && <rect class="selection" x={Math.min(drag.value.from, drag.value.to)} y={0} width={Math.abs(drag.value.to - drag.value.from)} height={HEIGHT} />}
      </svg>
      <figcaption class="axis">
        <span>{when.format(start)}</span>
        <span>{data.interval_seconds >= 86_400 ? `${data.interval_seconds / 86_400} d` : data.interval_seconds >= 3600 ? `${data.interval_seconds / 3600} h` : data.interval_seconds >= 60 ? `${data.interval_seconds / 60} min` : `${data.interval_seconds} s`} per bar</span>
        <span>{when.format(end)}</span>
      </figcaption>
    </figure>
  );
}
