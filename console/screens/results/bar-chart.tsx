import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

interface BarChartProps {
  /** What the bars measure, e.g. "Coverage rate". */
  title: string;
  labels: readonly string[];
  values: readonly (number | null)[];
  format(value: number): string;
}

const HEIGHT = 280;

/**
 * A bar per group, drawn on a canvas by uPlot (one draw, whatever the number of groups). The
 * numbers behind it are in the table beside it; the chart is an image to assistive technology,
 * named by what it shows. Hovering a bar shows its group and value in the legend.
 */
export function BarChart({ title, labels, values, format }: BarChartProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(320, el.clientWidth),
      height: HEIGHT,
      scales: {
        x: { time: false, range: () => [-0.5, Math.max(0.5, labels.length - 0.5)] },
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
      },
      axes: [
        {
          incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500],
          space: 70,
          values: (_u, splits) => splits.map((i) => (Number.isInteger(i) ? (labels[i] ?? '') : '')),
        },
        { size: 64, values: (_u, splits) => splits.map((v) => format(v)) },
      ],
      series: [
        { label: 'Group', value: (_u, i) => (i === null ? '—' : (labels[i] ?? '—')) },
        {
          label: title,
          fill: '#0b5cad',
          stroke: '#0b5cad',
          width: 0,
          paths: uPlot.paths.bars?.({ size: [0.7, 48] }),
          points: { show: false },
          value: (_u, v) => (v === null ? '—' : format(v)),
        },
      ],
      cursor: { drag: { x: false, y: false } },
    };
    const xs = labels.map((_, i) => i);
    const plot = new uPlot(opts, [xs, values as (number | null)[]], el);
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(320, el.clientWidth), height: HEIGHT }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [labels, values, title, format]);
  return <div ref={ref} className="chart" role="img" aria-label={`Bar chart: ${title} by group`} />;
}
