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
