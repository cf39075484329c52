package dev.streamform.pipelines.file;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The lines of a file as bytes, each held to at most {@code max} bytes: a longer line is given as
 * its first {@code max} bytes with {@link #tooLong()} set, and the rest of it is skipped unread
 * into memory, so one line without an end cannot exhaust the heap. Lines end at {@code \n} (a
 * {@code \r} before it is dropped), as JSON lines do. Lines are bytes, not text, so that a line
 * that is not UTF-8 is that line's problem ({@code JsonRecords.decode} quarantines it), never the
 * file's: a decoding reader stops at the first malformed byte and takes the rest of the file with
 * it.
 */
public final class BoundedLines implements Closeable {
  private final InputStream in;
  private final int max;
  private final byte[] buffer = new byte[8192];
  private int position;
  private int end;
  private boolean tooLong;
  private long length;

  BoundedLines(InputStream in, int max) {
    this.in = in;
    this.max = max;
  }

  /**
   * The lines of {@code file} as {@link FileSource} reads them, at most {@link FileSource#MAX_LINE}
   * bytes each: whatever else reads a source file line by line (the gates count its offsets) splits
   * it the same way.
   */
  public static BoundedLines of(Path file) throws IOException {
    return new BoundedLines(
        new BufferedInputStream(Files.newInputStream(file)), FileSource.MAX_LINE);
  }

  /**
   * How many lines {@link #next()} gives for {@code file} — its offsets run 0 to this minus 1 —
   * counted without keeping any: every {@code \n} ends one, and a last line without one counts too.
   */
  public static long count(Path file) throws IOException {
    long lines = 0;
    byte last = '\n';
    byte[] buffer = new byte[65536];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        for (int i = 0; i < n; i++) {
          if (buffer[i] == '\n') {
            lines++;
          }
        }
        if (n > 0) {
          last = buffer[n - 1];
        }
      }
    }
    return last == '\n' ? lines : lines + 1;
  }

  /** The next line (cut to {@code max} bytes when too long), or null at the end. */
  public byte[] next() throws IOException {
    byte[] line = new byte[64];
    int size = 0;
    tooLong = false;
    length = 0;
    boolean any = false;
    while (true) {
      if (position == end) {
        end = Math.max(0, in.read(buffer, 0, buffer.length));
        position = 0;
        if (end == 0) {
          return any ? finish(line, size) : null;
        }
      }
      any = true;
      int start = position;
      while (position < end && buffer[position] != '\n') {
        position++;
      }
      int n = position - start;
      length += n;
      int take = tooLong ? 0 : Math.min(n, max - size);
      if (!tooLong && n > take) {
        tooLong = true;
      }
      if (take > 0) {
        if (size + take > line.length) {
          line = Arrays.copyOf(line, Math.max(size + take, Math.min(max, line.length * 2)));
        }
        System.arraycopy(buffer, start, line, size, take);
        size += take;
      }
      if (position < end) {
        position++; // the \n
        return finish(line, size);
      }
    }
  }

  /** Whether the last line was longer than {@code max} bytes (and was cut). */
  public boolean tooLong() {
    return tooLong;
  }

  /** The full length of the last line, in bytes, even when it was cut. */
  long length() {
    return length;
  }

  private byte[] finish(byte[] line, int size) {
    if (!tooLong && size > 0 && line[size - 1] == '\r') {
      size--;
      length--;
    }
    return Arrays.copyOf(line, size);
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
