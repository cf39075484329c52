package dev.streamform.pipelines.file;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file of JSON lines saved as UTF-16 or UTF-32 (with a byte-order mark or without, as RFC 4627
 * tells them by their first bytes) is refused before the run, naming the encoding and how to
 * convert it (docs/decisions/0131): read as UTF-8 its first line was quarantined, the next ones
 * read as text and a phantom line of NUL bytes quarantined.
 */
class FileEncodingTest {
  private static final String LINES =
      "{\"customer_id\":42,\"amount\":10.00,\"ordered_at\":\"2026-08-30T10:00:00Z\"}\n"
          + "{\"customer_id\":7,\"amount\":3.00,\"ordered_at\":\"2026-08-30T10:08:00Z\"}\n";

  @TempDir Path dir;

  private Path write(String name, byte[] bytes) throws Exception {
    Path f = dir.resolve(name);
    Files.write(f, bytes);
    return f;
  }

  private String refusal(Path f) {
    return assertThrows(
            IllegalArgumentException.class,
            () -> FileModelRun.checkReadable(List.of(f), Files::newInputStream))
        .getMessage();
  }

  @Test
  void aUtf16FileWithAByteOrderMarkIsRefusedWithTheConversion() throws Exception {
    // what iconv -f utf-8 -t utf-16 writes: a byte-order mark, then little-endian
    byte[] body = LINES.getBytes(StandardCharsets.UTF_16LE);
    byte[] bytes = new byte[body.length + 2];
    bytes[0] = (byte) 0xFF;
    bytes[1] = (byte) 0xFE;
    System.arraycopy(body, 0, bytes, 2, body.length);
    Path f = write("orders.jsonl", bytes);
    String message = refusal(f);
    assertThat(
        message,
        containsString(f + ": is UTF-16 (it starts with the byte-order mark FF FE), not UTF-8"));
    assertThat(message, containsString("iconv -f UTF-16 -t UTF-8"));
    // Java's UTF-16: big-endian, with the mark FE FF
    assertThat(
        refusal(write("be-bom.jsonl", LINES.getBytes(StandardCharsets.UTF_16))),
        containsString("is UTF-16 (it starts with the byte-order mark FE FF)"));
  }

  @Test
  void utf16WithoutAMarkAndUtf32AreRefusedToo() throws Exception {
    assertThat(
        refusal(write("le.jsonl", LINES.getBytes(StandardCharsets.UTF_16LE))),
        containsString("is UTF-16LE"));
    assertThat(
        refusal(write("be.jsonl", LINES.getBytes(StandardCharsets.UTF_16BE))),
        containsString("is UTF-16BE"));
    assertThat(
        refusal(write("u32.jsonl", LINES.getBytes(Charset.forName("UTF-32LE")))),
        containsString("is UTF-32LE"));
  }

  @Test
  void utf8IsRead() throws Exception {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    byte[] body = LINES.getBytes(StandardCharsets.UTF_8);
    byte[] withBom = new byte[bom.length + body.length];
    System.arraycopy(bom, 0, withBom, 0, 3);
    System.arraycopy(body, 0, withBom, 3, body.length);
    Path plain = write("plain.jsonl", body);
    Path marked = write("marked.jsonl", withBom);
    Path empty = write("empty.jsonl", new byte[0]);
    Path shortOne = write("short.jsonl", "{}\n".getBytes(StandardCharsets.UTF_8));
    assertDoesNotThrow(
        () ->
            FileModelRun.checkReadable(
                List.of(plain, marked, empty, shortOne), Files::newInputStream));
  }
}
