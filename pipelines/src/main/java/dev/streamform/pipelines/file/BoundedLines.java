package dev.streamform.pipelines.file;

import java.io.Closeable;
import java.io.IOException;
import java.io.Reader;

/**
 * The lines of a reader, each held to at most {@code max} characters: a longer line is given as its
 * first {@code max} characters with {@link #tooLong()} set, and the rest of it is skipped unread
 * into memory, so one line without an end cannot exhaust the heap. Lines end at {@code \n} (a
 * {@code \r} before it is dropped), as {@code BufferedReader.readLine} reads JSON lines.
 */
final class BoundedLines implements Closeable {
  private final Reader in;
  private final int max;
  private final char[] buffer = new char[8192];
  private int position;
  private int end;
  private boolean tooLong;
  private long length;

  BoundedLines(Reader in, int max) {
    this.in = in;
    this.max = max;
  }

  /** The next line (cut to {@code max} characters when too long), or null at the end. */
  String next() throws IOException {
    StringBuilder line = new StringBuilder();
    tooLong = false;
    length = 0;
    boolean any = false;
    while (true) {
      if (position == end) {
        end = Math.max(0, in.read(buffer, 0, buffer.length));
        position = 0;
        if (end == 0) {
          return any ? finish(line) : null;
        }
      }
      any = true;
      int start = position;
      while (position < end && buffer[position] != '\n') {
        position++;
      }
      int n = position - start;
      length += n;
      int room = max - line.length();
      if (!tooLong && n > room) {
        line.append(buffer, start, room);
        tooLong = true;
      } else if (!tooLong) {
        line.append(buffer, start, n);
      }
      if (position < end) {
        position++; // the \n
        return finish(line);
      }
    }
  }

  /** Whether the last line was longer than {@code max} characters (and was cut). */
  boolean tooLong() {
    return tooLong;
  }

  /** The full length of the last line, in characters, even when it was cut. */
  long length() {
    return length;
  }

  private String finish(StringBuilder line) {
    int n = line.length();
    if (!tooLong && n > 0 && line.charAt(n - 1) == '\r') {
      line.setLength(n - 1);
      length--;
    }
    return line.toString();
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
