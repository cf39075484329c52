package dev.streamform.policies.project;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The problem of a project file that is not UTF-8 text: the line and column of its first byte that
 * UTF-8 does not allow, and that byte, so the user finds it (a Latin-1 {@code é} is one byte 0xE9).
 */
public final class NotUtf8 {
  private NotUtf8() {}

  /**
   * The index of the first byte of {@code bytes} that UTF-8 does not allow where it stands, or -1
   * when every byte decodes. ASCII-only input (most records) needs no decoder.
   */
  public static int firstMalformedByte(byte[] bytes) {
    boolean ascii = true;
    for (byte b : bytes) {
      if (b < 0) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      return -1;
    }
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(1024);
    while (true) {
      CoderResult r = decoder.decode(in, out, true);
      if (r.isError()) {
        return in.position();
      }
      if (!r.isOverflow()) {
        return -1; // underflow at the end of input: every byte decoded
      }
      out.clear(); // only the check matters, not the text
    }
  }

  /**
   * The first byte of a text that UTF-8 does not allow where it stands: its line and its byte
   * within that line (both counted from 1) and its value.
   */
  public record Malformed(int line, int byteOfLine, int value) {}

  /** Where the first byte of {@code bytes} that UTF-8 does not allow is, or empty when none. */
  public static Optional<Malformed> firstMalformed(byte[] bytes) {
    int at = firstMalformedByte(bytes);
    if (at < 0) {
      return Optional.empty();
    }
    int line = 1;
    int lineStart = 0;
    for (int i = 0; i < at; i++) {
      if (bytes[i] == '\n') {
        line++;
        lineStart = i + 1;
      }
    }
    return Optional.of(new Malformed(line, at - lineStart + 1, bytes[at] & 0xFF));
  }

  /**
   * A file of JSON lines saved as UTF-16 or UTF-32 (docs/decisions/0131): the encoding's {@code
   * name}, how the file {@code shows} it, and the name {@code iconv} takes. {@code run} refuses
   * such a file before its job starts and {@code check} reports it, in the same words.
   */
  public record WideEncoding(String name, String shows, String iconvName) {
    /** What is wrong, e.g. {@code f: is UTF-16 (it starts with the byte-order mark FF FE), ...}. */
    public String problem(Path file) {
      return file
          + ": is "
          + name
          + " ("
          + shows
          + "), not UTF-8: a file of JSON lines is read as UTF-8";
    }

    /** The conversion: {@code convert it: iconv -f UTF-16 -t UTF-8 f > f.utf8 && mv f.utf8 f}. */
    public String fix(Path file) {
      return "convert it: iconv -f "
          + iconvName
          + " -t UTF-8 "
          + file
          + " > "
          + file
          + ".utf8 && mv "
          + file
          + ".utf8 "
          + file;
    }

    /** {@link #problem} and {@link #fix} in one line, as {@code run} refuses the file. */
    public String refusal(Path file) {
      return problem(file) + " — " + fix(file);
    }
  }

  /**
   * The encoding a file starting with {@code head} (its first bytes, up to 4) is in, when it is
   * UTF-16 or UTF-32. A byte-order mark says so; without one, JSON text starts with an ASCII
   * character, so NUL bytes among its first four say the encoding (RFC 4627, section 3). Empty for
   * UTF-8, with or without its mark, and for anything else (a line that is not UTF-8 is that line's
   * problem).
   */
  public static Optional<WideEncoding> wideEncoding(byte[] head) {
    int n = head.length;
    int[] b = new int[4];
    for (int i = 0; i < 4; i++) {
      b[i] = i < n ? head[i] & 0xFF : -1;
    }
    if (b[0] == 0xFF && b[1] == 0xFE && b[2] == 0 && b[3] == 0) {
      return mark("UTF-32", "FF FE 00 00");
    }
    if (b[0] == 0 && b[1] == 0 && b[2] == 0xFE && b[3] == 0xFF) {
      return mark("UTF-32", "00 00 FE FF");
    }
    if (b[0] == 0xFF && b[1] == 0xFE) {
      return mark("UTF-16", "FF FE");
    }
    if (b[0] == 0xFE && b[1] == 0xFF) {
      return mark("UTF-16", "FE FF");
    }
    if (n < 4) {
      return Optional.empty();
    }
    if (b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] != 0) {
      return nulBytes("UTF-32BE");
    }
    if (b[0] != 0 && b[1] == 0 && b[2] == 0 && b[3] == 0) {
      return nulBytes("UTF-32LE");
    }
    if (b[0] == 0 && b[1] != 0 && b[2] == 0 && b[3] != 0) {
      return nulBytes("UTF-16BE");
    }
    if (b[0] != 0 && b[1] == 0 && b[2] != 0 && b[3] == 0) {
      return nulBytes("UTF-16LE");
    }
    return Optional.empty();
  }

  private static Optional<WideEncoding> mark(String name, String bytes) {
    return Optional.of(new WideEncoding(name, "it starts with the byte-order mark " + bytes, name));
  }

  private static Optional<WideEncoding> nulBytes(String name) {
    return Optional.of(new WideEncoding(name, "NUL bytes among its first four", name));
  }

  /** The problem with {@code file}, shown as {@code shownAs}, which failed to decode as UTF-8. */
  static Problem problem(Path file, String shownAs) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      return Problem.ofFile(shownAs, "is not UTF-8 text", "save it as UTF-8");
    }
    Optional<Malformed> at = firstMalformed(bytes);
    if (at.isEmpty()) {
      return Problem.ofFile(shownAs, "is not UTF-8 text", "save it as UTF-8");
    }
    return Problem.of(
        shownAs,
        at.get().line(),
        Optional.empty(),
        Optional.empty(),
        String.format(
            "is not UTF-8 text: byte %d of the line is 0x%02X, which UTF-8 does not allow there",
            at.get().byteOfLine(), at.get().value()),
        Optional.of("save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"));
  }
}
