// How the report views write a figure: each with its unit, a dash for "no
// figure" (null: nothing to divide or average), never a made-up zero.

export type Format = (value: number) => string;

export const count: Format = (v) => v.toLocaleString();
export const share: Format = (v) => `${(v * 100).toFixed(1)}%`;
/** Seconds as the largest unit that keeps the figure readable. */
export const duration: Format = (s) => (s < 120 ? `${Math.round(s)} s` : s < 7200 ? `${(s / 60).toFixed(1)} min` : s < 172_800 ? `${(s / 3600).toFixed(1)} h` : `${(s / 86_400).toFixed(1)} d`);
export const minutes: Format = (m) => `${m.toLocaleString()} min`;
/** Bytes in binary units, as the cost report prices them (GB means GiB). */
export const bytes: Format = (b) => {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = b;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${b.toLocaleString()} B` : `${value.toFixed(1)} ${units[unit]}`;
};
/** An amount in the prices' own currency (the report names none), to the 4 decimals the API keeps. */
export const money: Format = (v) => v.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 4 });

/** A figure that may be null, written with its format. */
export function shown(value: number | null | undefined, format: Format = count): string {
  return value === null || value === undefined ? '–' : format(value);
}
