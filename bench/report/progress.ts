/** The progress display: one bar per running step over a log of finished ones; plain lines when not on a terminal. */
import { MultiBar, Presets, type SingleBar } from 'cli-progress';

export interface Task {
  update(value: number): void;
  done(): void;
}

export interface Progress {
  task(label: string, total: number): Task;
  log(line: string): void;
  stop(): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  const started = Date.now();
  const stamp = () => `[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s]`;
  if (!stream.isTTY) {
    return {
      task: (label) => {
        stream.write(`${stamp()} ${label} ...\n`);
        return { update: () => undefined, done: () => undefined };
      },
      log: (line) => void stream.write(`${stamp()} ${line}\n`),
      stop: () => undefined,
    };
  }
  const bars = new MultiBar(
    {
      stream,
      format: ' {label} |{bar}| {value}/{total} {duration}s',
      hideCursor: true,
      clearOnComplete: true,
      stopOnComplete: false,
      barsize: 30,
      fps: 5,
    },
    Presets.shades_classic,
  );
  return {
    task(label, total) {
      const bar: SingleBar = bars.create(total, 0, { label: label.padEnd(34).slice(0, 34) });
      return {
        update(value) {
          bar.update(Math.min(value, total));
        },
        done() {
          bar.update(total);
          bars.remove(bar);
        },
      };
    },
    log(line) {
      bars.log(`${stamp()} ${line}\n`);
    },
    stop() {
      bars.stop();
    },
  };
}
