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
final class NotUtf8 {
  private NotUtf8() {}

  /** The problem with {@code file}, shown as {@code shownAs}, which failed to decode as UTF-8. */
  static Problem problem(Path file, String shownAs) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      return Problem.ofFile(shownAs, "is not UTF-8 text", "save it as UTF-8");
    }
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length + 1);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      return Problem.ofFile(shownAs, "is not UTF-8 text", "save it as UTF-8");
    }
    int at = in.position();
    int line = 1;
    int lineStart = 0;
    for (int i = 0; i < at; i++) {
      if (bytes[i] == '\n') {
        line++;
        lineStart = i + 1;
      }
    }
    return Problem.of(
        shownAs,
        line,
        Optional.empty(),
        Optional.empty(),
        String.format(
            "is not UTF-8 text: byte %d of the line is 0x%02X, which UTF-8 does not allow there",
            at - lineStart + 1, bytes[at] & 0xFF),
        Optional.of("save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"));
  }
}
