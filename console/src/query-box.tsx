// The query box: cairn's query language coloured as it is typed (a layer of
// tokens behind a transparent input, so the input stays a plain text field
// for the browser, screen readers and the `/` key), and completion of field
// names and of a field's values from the stored events (GET
// /v1/artifacts/fields), as an ARIA 1.2 combobox with a listbox.
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import type { Ref } from 'preact';
import { api } from './api.ts';
import { completionAt, quoteValue, tokenize, type CompletionContext } from './query-tokens.ts';
import { rangeBounds } from './time.tsx';

const MAX_OPTIONS = 10;

interface Option {
  label: string;
  /** What replaces the text being completed. */
  insert: string;
  count: number;
}

interface Range {
  key: string;
  from: string | null;
  to: string | null;
}

interface Props {
  value: string;
  onInput: (value: string) => void;
  /** The range searched (its key, and a custom range's ends): fields and values are those of the stored events in it. */
  range: Range;
  invalid: boolean;
  inputRef: Ref<HTMLInputElement>;
  /** The input's id (default `query`, the box `/` focuses); the list, help and error ids derive from it. */
  id?: string;
  placeholder?: string;
}

/** Field names and values, asked once per range (and per field). */
const cache = new Map<string, Promise<Array<{ name: string; count: number }>>>();

function known(range: Range, field?: string): Promise<Array<{ name: string; count: number }>> {
  const key = JSON.stringify([range, field ?? null]);
  let answer = cache.get(key);
  if (!answer) {
    const query = { ...rangeBounds(range.key, range.from, range.to), field, limit: 100 };
    answer = api<{ fields: Array<{ field: string; count: number }>; values: Array<{ value: string; count: number }> }>('GET', '/v1/artifacts/fields', { query })
      .then(({ data }) => (field ? data.values.map((v) => ({ name: v.value, count: v.count })) : data.fields.map((f) => ({ name: f.field, count: f.count }))))
      .catch(() => {
        cache.delete(key);
        return [];
      });
    cache.set(key, answer);
  }
  return answer;
}

async function optionsFor(context: CompletionContext, range: Range): Promise<Option[]> {
  const prefix = context.prefix.toLowerCase();
  if (context.kind === 'field') {
    if (!prefix) return [];
    const fields = await known(range);
    return fields
      .filter((f) => f.name.toLowerCase().startsWith(prefix) && f.name.toLowerCase() !== prefix)
      .slice(0, MAX_OPTIONS)
      .map((f) => ({ label: f.name, insert: `${f.name}:`, count: f.count }));
  }
  const values = await known(range, context.field);
  return values
    .filter((v) => v.name.toLowerCase().startsWith(prefix))
    .slice(0, MAX_OPTIONS)
    .map((v) => ({ label: v.name, insert: quoteValue(v.name), count: v.count }));
}

export function QueryBox({ value, onInput, range, invalid, inputRef, id = 'query', placeholder = 'e.g. event.category:authentication event.outcome:failure  (press / to focus)' }: Props) {
  const options = useSignal<Option[]>([]);
  const active = useSignal(-1);
  const context = useSignal<CompletionContext | null>(null);
  const layer = useRef<HTMLPreElement>(null);
  const asked = useRef(0);
  const open = options.value.length > 0;

  function close() {
    options.value = [];
    active.value = -1;
  }

  async function suggest(input: HTMLInputElement) {
    const caret = input.selectionStart ?? input.value.length;
    const at = input.value === '' ? null : completionAt(input.value, caret);
    context.value = at;
    if (!at) return close();
    const ask = ++asked.current;
    const found = await optionsFor(at, range);
    if (ask !== asked.current) return;
    options.value = found;
    active.value = -1;
  }

  function accept(option: Option, input: HTMLInputElement) {
    const at = context.value;
    if (!at) return;
    const next = input.value.slice(0, at.start) + option.insert + input.value.slice(at.end);
    const caret = at.start + option.insert.length;
    onInput(next);
    close();
    // After Preact has put the new value in: the caret after what was inserted, and values offered next for a field.
    requestAnimationFrame(() => {
      input.setSelectionRange(caret, caret);
      if (option.insert.endsWith(':')) void suggest(input);
    });
  }

  function onKeyDown(event: KeyboardEvent) {
    const input = event.currentTarget as HTMLInputElement;
    if (!open) {
      if (event.key === 'ArrowDown' && event.altKey) void suggest(input);
      return;
    }
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const n = options.value.length;
      active.value = event.key === 'ArrowDown' ? (active.value + 1) % n : (active.value - 1 + n) % n;
    } else if ((event.key === 'Enter' || event.key === 'Tab') && active.value >= 0) {
      event.preventDefault();
      accept(options.value[active.value]!, input);
    } else if (event.key === 'Escape') {
      // Esc closes the list only (not the artifact beside the results).
      event.preventDefault();
      event.stopPropagation();
      close();
    }
  }

  // The coloured layer scrolls with the text.
  const syncScroll = (input: HTMLInputElement) => {
    if (layer.current) layer.current.scrollLeft = input.scrollLeft;
  };
  useEffect(close, [range.key, range.from, range.to]);

  const activeId = active.value >= 0 ? `${id}-option-${active.value}` : undefined;
  return (
    <div class="query-box">
      <pre class="query-layer" aria-hidden="true" ref={layer}>
        {tokenize(value).map((t) => (
          <span key={t.start} class={`q-${t.kind}`}>
            {t.text}
          </span>
        ))}{' '}
      </pre>
      <input
        id={id}
        ref={inputRef}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open ? 'true' : 'false'}
        aria-controls={`${id}-options`}
        aria-activedescendant={activeId}
        spellcheck={false}
        autoComplete="off"
        placeholder={placeholder}
        value={value}
        onInput={(e) => {
          onInput(e.currentTarget.value);
          syncScroll(e.currentTarget);
          void suggest(e.currentTarget);
        }}
        onKeyDown={onKeyDown}
        onKeyUp={(e) => syncScroll(e.currentTarget)}
        onScroll={(e) => syncScroll(e.currentTarget)}
        onBlur={() => setTimeout(close, 150)}
        aria-invalid={invalid ? 'true' : undefined}
        aria-describedby={invalid ? `${id}-error` : `${id}-help`}
      />
      <span id={`${id}-help`} class="visually-hidden">
        Field names and values are offered as you type; Up and Down choose one, Enter or Tab takes it, Escape closes the list.
      </span>
      <ul id={`${id}-options`} role="listbox" aria-label="Suggestions" class="query-options" hidden={!open}>
        {options.value.map((option, n) => (
          <li
            key={option.label}
            id={`${id}-option-${n}`}
            role="option"
            aria-selected={n === active.value ? 'true' : 'false'}
            // mousedown, so the input keeps focus
            onMouseDown={(e) => {
              e.preventDefault();
              accept(option, document.getElementById(id) as HTMLInputElement);
            }}
          >
            <span>{option.label}</span> <span class="count">{option.count.toLocaleString()}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
