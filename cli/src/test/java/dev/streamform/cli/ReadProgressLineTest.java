package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The file run's last progress line on standard error ({@code read <file>: N lines}) counts lines
 * as the summary on standard output does: blank lines are skipped (docs/guides/files.md), so a data
 * file with a trailing blank line does not read as one line more on stderr than on stdout.
 */
@Isolated // sets System.out/err or a system property every test of the JVM reads
class ReadProgressLineTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");
  private static final Pattern LINES_READ =
      Pattern.compile("^(\\d+) lines read:", Pattern.MULTILINE);

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  /** Runs {@code streamform run <project>}, returning what the file source printed on stderr. */
  private String run(Path project) {
    PrintStream was = System.err;
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    System.setErr(new PrintStream(progress, true, StandardCharsets.UTF_8));
    try {
      assertThat(
          Streamform.run(new PrintWriter(out), new PrintWriter(err), "run", project.toString()),
          is(0));
    } finally {
      System.setErr(was);
    }
    return progress.toString(StandardCharsets.UTF_8);
  }

  private Path copy() throws IOException {
    Path project = dir.resolve("gs");
    try (Stream<Path> files = Files.walk(GETTING_STARTED)) {
      for (Path from : (Iterable<Path>) files::iterator) {
        Path to = project.resolve(GETTING_STARTED.relativize(from).toString());
        if (Files.isDirectory(from)) {
          Files.createDirectories(to);
        } else if (!from.toString().contains("/target/")) {
          Files.copy(from, to);
        }
      }
    }
    return project;
  }

  private int linesRead() {
    Matcher m = LINES_READ.matcher(out.toString());
    assertThat(out.toString(), m.find(), is(true));
    return Integer.parseInt(m.group(1));
  }

  @Test
  void aTrailingBlankLineIsNotCountedAsALineRead() throws IOException {
    Path project = copy();
    Path data = project.resolve("payments.jsonl");
    Files.writeString(data, Files.readString(data) + "\n"); // the file ended with \n: a blank line
    String progress = run(project);
    assertThat(
        progress,
        containsString(
            "streamform run: read "
                + data.toAbsolutePath()
                + ": "
                + linesRead()
                + " lines, 1 blank line skipped\n"));
  }

  @Test
  void withoutBlankLinesTheLineSaysOnlyTheLinesRead() throws IOException {
    Path project = copy();
    Path data = project.resolve("payments.jsonl");
    String progress = run(project);
    assertThat(
        progress,
        containsString(
            "streamform run: read " + data.toAbsolutePath() + ": " + linesRead() + " lines\n"));
  }
}
