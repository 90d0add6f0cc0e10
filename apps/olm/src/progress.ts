const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Progress {
  /** Shows what is happening now; on a terminal it animates, elsewhere each new text prints once. */
  update(text: string): void;
  /** Ends with a final line. */
  done(text: string): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  const interactive = stream.isTTY === true;
  let current = '';
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  const draw = () => stream.write(`\r\x1b[2K${frames[frame++ % frames.length]} ${current}`);
  return {
    update(text) {
      if (text === current) return;
      current = text;
      if (!interactive) {
        stream.write(`${text}\n`);
        return;
      }
      timer ??= setInterval(draw, 100);
      draw();
    },
    done(text) {
      if (timer) clearInterval(timer);
      timer = undefined;
      stream.write(interactive ? `\r\x1b[2K${text}\n` : `${text}\n`);
    },
  };
}
