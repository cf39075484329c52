package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code check} warns of a file source whose {@code path:} matches no file, at the line of {@code
 * path:} in sources.yml, which {@code run} refuses when it starts; it does not refuse the project,
 * as {@code test} needs no such file: a fixture's events are its own (ADR 0119).
 */
class CheckFileSourcePathTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");

  @TempDir Path dir;

  private int run(StringWriter out, StringWriter err, String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  @Test
  void checkWarnsOfAPathThatMatchesNoFile() throws Exception {
    Path project = project();
    Path sources = project.resolve("sources.yml");
    Files.writeString(
        sources, Files.readString(sources).replace("path: payments.jsonl", "path: nothere.jsonl"));
    List<String> lines = Files.readAllLines(sources);
    int line = 1 + lines.indexOf(lines.stream().filter(l -> l.contains("path:")).findFirst().get());

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = run(out, err, "check", project.toString());

    assertThat(err.toString(), status, is(0));
    assertThat(
        err.toString(),
        containsString(
            "warning: sources.yml:"
                + line
                + ": source 'payments', key 'path': nothere.jsonl matches no file under "
                + project));
    assertThat(err.toString(), containsString("streamform run will refuse it"));
    assertThat(err.toString(), containsString("relative to the project folder"));

    // the fixtures still run: their events are the fixture's own
    StringWriter testOut = new StringWriter();
    StringWriter testErr = new StringWriter();
    assertThat(
        testOut + "\n" + testErr,
        run(testOut, testErr, "test", project.toString(), "--color", "never"),
        is(0));
  }

  /**
   * A data file saved as UTF-16 is a problem {@code check} reports as {@code run} refuses it, in
   * the same words, at the line of {@code path:} (ADR 0131): {@code check} said {@code ok} and
   * exited 0.
   */
  @Test
  void checkRefusesADataFileSavedAsUtf16AsRunDoes() throws Exception {
    Path project = project();
    Path data = project.resolve("payments.jsonl");
    // what iconv -f utf-8 -t utf-16 writes: the byte-order mark FF FE, then little-endian
    byte[] body = Files.readString(data).getBytes(java.nio.charset.StandardCharsets.UTF_16LE);
    byte[] bytes = new byte[body.length + 2];
    bytes[0] = (byte) 0xFF;
    bytes[1] = (byte) 0xFE;
    System.arraycopy(body, 0, bytes, 2, body.length);
    Files.write(data, bytes);
    List<String> lines = Files.readAllLines(project.resolve("sources.yml"));
    int line = 1 + lines.indexOf(lines.stream().filter(l -> l.contains("path:")).findFirst().get());

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = run(out, err, "check", project.toString());

    String refusal =
        data
            + ": is UTF-16 (it starts with the byte-order mark FF FE), not UTF-8: a file of JSON"
            + " lines is read as UTF-8 — convert it: iconv -f UTF-16 -t UTF-8 "
            + data
            + " > "
            + data
            + ".utf8 && mv "
            + data
            + ".utf8 "
            + data;
    assertThat(err.toString(), status, is(1));
    assertThat(out.toString(), is(""));
    assertThat(
        err.toString(),
        is(
            "sources.yml:"
                + line
                + ": source 'payments', key 'path': "
                + refusal
                + System.lineSeparator()
                + "1 problem"
                + System.lineSeparator()));

    // run refuses it in the same words
    StringWriter runOut = new StringWriter();
    StringWriter runErr = new StringWriter();
    assertThat(
        runErr.toString(),
        run(runOut, runErr, "run", project.toString(), "--output", dir.resolve("o").toString()),
        is(1));
    assertThat(runErr.toString(), containsString(refusal));
  }

  /**
   * A data file the user running {@code check} may not read is a problem {@code check} reports as
   * {@code run} refuses it, in the same words, at the line of {@code path:}: {@code check} said
   * {@code ok} and exited 0. Root reads a file whatever its mode, so as root this test is skipped
   * (UnreadableFilesTest in policies checks the same with an opener that refuses).
   */
  @Test
  void checkRefusesADataFileItCannotReadAsRunDoes() throws Exception {
    Path project = project();
    Path data = project.resolve("payments.jsonl").toAbsolutePath().normalize();
    Files.setPosixFilePermissions(data, java.util.Set.of());
    org.junit.jupiter.api.Assumptions.assumeFalse(
        Files.isReadable(data),
        "this user (root?) reads a file whose permissions forbid it, so the file cannot be made"
            + " unreadable here");
    List<String> lines = Files.readAllLines(project.resolve("sources.yml"));
    int line = 1 + lines.indexOf(lines.stream().filter(l -> l.contains("path:")).findFirst().get());

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = run(out, err, "check", project.toString());

    String refusal = data + ": cannot be read: permission denied — check the file's permissions";
    assertThat(err.toString(), status, is(1));
    assertThat(out.toString(), is(""));
    assertThat(
        err.toString(),
        is(
            "sources.yml:"
                + line
                + ": source 'payments', key 'path': "
                + refusal
                + System.lineSeparator()
                + "1 problem"
                + System.lineSeparator()));

    // run refuses it in the same words
    StringWriter runOut = new StringWriter();
    StringWriter runErr = new StringWriter();
    assertThat(
        runErr.toString(),
        run(runOut, runErr, "run", project.toString(), "--output", dir.resolve("o").toString()),
        is(1));
    assertThat(runErr.toString(), containsString(refusal));
  }

  @Test
  void checkSaysNothingOfAPathThatMatches() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    assertThat(err.toString(), run(out, err, "check", project().toString()), is(0));
    assertThat(err.toString(), is(""));
  }

  private Path project() throws Exception {
    Path copy = dir.resolve("project");
    try (Stream<Path> all = Files.walk(GETTING_STARTED)) {
      for (Path f : (Iterable<Path>) all::iterator) {
        Path to = copy.resolve(GETTING_STARTED.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else if (!GETTING_STARTED.relativize(f).startsWith("target")) {
          Files.copy(f, to);
        }
      }
    }
    return copy;
  }
}
