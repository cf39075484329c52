package dev.streamform.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The documentation checked as code: every relative link resolves (file and heading), every command
 * of a block marked {@code <!-- runnable -->} runs and shows in a terminal what the page shows
 * (standard output and error; a line {@code ...} for lines left out), every block marked {@code
 * <!-- file: PATH -->} is that file of the repository, and every Java snippet compiles against the
 * project's classes. See CONTRIBUTING.md, "Documentation".
 */
@Isolated // sets System.out/err or a system property every test of the JVM reads
class DocsCheckTest {
  private static final Path ROOT = root();
  private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
  private static final String RUNNABLE = "<!-- runnable -->";
  private static final String ELIDED = "...";
  private static final Pattern FILE = Pattern.compile("<!-- file: (\\S+) -->");

  @TempDir Path classes;

  static Path root() {
    Path here = Paths.get("").toAbsolutePath();
    return Files.isRegularFile(here.resolve("../README.md"))
            && Files.isDirectory(here.resolve("../docs"))
        ? here.getParent()
        : here;
  }

  /** Every Markdown page of the repository outside build output. */
  static List<Path> pages() throws IOException {
    try (Stream<Path> walk = Files.walk(ROOT)) {
      return walk.filter(p -> p.toString().endsWith(".md"))
          .filter(
              p -> {
                String rel = ROOT.relativize(p).toString();
                return !rel.contains("target/")
                    && !rel.startsWith(".")
                    && !rel.contains("/.")
                    && !rel.contains("node_modules");
              })
          .sorted()
          .collect(Collectors.toList());
    }
  }

  /** One fenced code block of a page: its info string, its first line number, its lines. */
  record Block(
      Path page, int line, String info, boolean runnable, String file, List<String> lines) {
    String where() {
      return ROOT.relativize(page) + ":" + line;
    }
  }

  static List<Block> blocks(Path page) throws IOException {
    List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (!line.startsWith("```")) {
        continue;
      }
      String info = line.substring(3).trim();
      String before = i > 0 ? lines.get(i - 1).trim() : "";
      boolean runnable = before.equals(RUNNABLE);
      Matcher file = FILE.matcher(before);
      String shows = file.matches() ? file.group(1) : null;
      List<String> body = new ArrayList<>();
      int j = i + 1;
      while (j < lines.size() && !lines.get(j).startsWith("```")) {
        body.add(lines.get(j));
        j++;
      }
      blocks.add(new Block(page, i + 1, info, runnable, shows, body));
      i = j;
    }
    return blocks;
  }

  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
  static String slug(String heading) {
    String text = heading.replaceAll("^#+\\s*", "").trim().toLowerCase(Locale.ROOT);
    text = text.replaceAll("[^\\p{L}\\p{N}\\- _]", "");
    return text.replace(' ', '-');
  }

  static List<String> anchors(Path page) throws IOException {
    List<String> anchors = new ArrayList<>();
    boolean fenced = false;
    for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
      if (line.startsWith("```")) {
        fenced = !fenced;
      } else if (!fenced && line.matches("^#{1,6} .*")) {
        anchors.add(slug(line));
      }
    }
    return anchors;
  }

  @Test
  void everyRelativeLinkResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : pages()) {
      List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
      boolean fenced = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.startsWith("```")) {
          fenced = !fenced;
          continue;
        }
        if (fenced) {
          continue;
        }
        Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", "``"));
        while (m.find()) {
          String target = m.group(1);
          if (target.matches("^[a-z]+:.*")) {
            continue; // http:, https:, mailto:
          }
          checked++;
          String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
          String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
          Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
          String where = ROOT.relativize(page) + ":" + (i + 1) + ": ";
          if (!Files.exists(resolved)) {
            broken.add(where + target + " (no such file: " + ROOT.relativize(resolved) + ")");
          } else if (anchor != null
              && resolved.toString().endsWith(".md")
              && !anchors(resolved).contains(anchor)) {
            broken.add(
                where
                    + target
                    + " (no heading with that anchor in "
                    + ROOT.relativize(resolved)
                    + ")");
          }
        }
      }
    }
    assertTrue(checked > 50, "found only " + checked + " relative links: is the docs tree there?");
    assertTrue(
        broken.isEmpty(),
        "broken links (fix the path or the anchor):\n" + String.join("\n", broken));
  }

  @Test
  void everyRunnableBlockPrintsWhatThePageShows() throws IOException {
    List<String> wrong = new ArrayList<>();
    int ran = 0;
    for (Path page : pages()) {
      for (Block block : blocks(page)) {
        if (!block.runnable()) {
          continue;
        }
        List<List<String>> commands = commands(block.lines());
        if (commands.isEmpty()) {
          wrong.add(block.where() + ": a runnable block starts with '$ ./streamform ...'");
          continue;
        }
        int at = block.line() + 1; // the block's first line
        for (List<String> shown : commands) {
          ran++;
          String command = shown.get(0);
          String where = ROOT.relativize(page) + ":" + at;
          at += shown.size();
          if (!command.startsWith("$ ./streamform ")) {
            wrong.add(where + ": `" + command + "`: a command is '$ ./streamform ...'");
            continue;
          }
          String[] args = arguments(command.substring("$ ./streamform ".length()));
          Terminal terminal = Terminal.run(args);
          List<String> expected = withoutTrailingBlanks(shown.subList(1, shown.size()));
          List<String> printed = withoutTrailingBlanks(terminal.lines());
          if (terminal.status() != 0 || !shows(expected, printed)) {
            wrong.add(
                where
                    + ": `"
                    + command
                    + "` exited "
                    + terminal.status()
                    + " and the terminal showed:\n"
                    + String.join("\n", printed)
                    + "\nthe page shows:\n"
                    + String.join("\n", expected));
          }
        }
      }
    }
    assertTrue(ran >= 3, "found only " + ran + " runnable commands");
    assertTrue(wrong.isEmpty(), String.join("\n\n", wrong));
  }

  /**
   * A runnable block's commands: each line starting with {@code $ } begins one, and the lines up to
   * the next are what it shows. Empty when the block does not start with a command.
   */
  static List<List<String>> commands(List<String> lines) {
    List<List<String>> commands = new ArrayList<>();
    if (lines.isEmpty() || !lines.get(0).startsWith("$ ")) {
      return commands;
    }
    for (String line : lines) {
      if (line.startsWith("$ ")) {
        commands.add(new ArrayList<>());
      }
      commands.get(commands.size() - 1).add(line);
    }
    return commands;
  }

  /**
   * Whether a page's lines show what a command printed: line for line, except that a line {@code
   * ...} (indented or not) stands for any number of printed lines the page leaves out, none
   * included.
   */
  static boolean shows(List<String> shown, List<String> printed) {
    // matches[i][j]: shown lines from i show printed lines from j
    boolean[][] matches = new boolean[shown.size() + 1][printed.size() + 1];
    matches[shown.size()][printed.size()] = true;
    for (int i = shown.size() - 1; i >= 0; i--) {
      boolean elided = shown.get(i).trim().equals(ELIDED);
      for (int j = printed.size(); j >= 0; j--) {
        matches[i][j] =
            elided
                ? matches[i + 1][j] || (j < printed.size() && matches[i][j + 1])
                : j < printed.size()
                    && shown.get(i).equals(printed.get(j))
                    && matches[i + 1][j + 1];
      }
    }
    return matches[0][0];
  }

  private static List<String> withoutTrailingBlanks(List<String> lines) {
    int end = lines.size();
    while (end > 0 && lines.get(end - 1).isBlank()) {
      end--;
    }
    return lines.subList(0, end);
  }

  /**
   * What a terminal shows of a command run in this JVM: its output and error streams as they were
   * written, one after the other, including what the pipeline's own threads print on {@code
   * System.err} (a file's {@code streamform run: read ...} line). The checkout's folder, which a
   * command prints in a file's absolute path, shows as {@code …}, as the pages write it.
   */
  record Terminal(int status, List<String> lines) {
    static synchronized Terminal run(String... args) {
      StringBuffer shown = new StringBuffer();
      Writer writer =
          new Writer() {
            @Override
            public void write(char[] chars, int off, int len) {
              shown.append(chars, off, len);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
          };
      PrintStream stream =
          new PrintStream(
              new OutputStream() {
                @Override
                public void write(int b) {
                  write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] bytes, int off, int len) {
                  // a PrintStream hands over each print call's text whole
                  shown.append(new String(bytes, off, len, StandardCharsets.UTF_8));
                }
              },
              true,
              StandardCharsets.UTF_8);
      PrintStream out = System.out;
      PrintStream err = System.err;
      int status;
      System.setOut(stream);
      System.setErr(stream);
      try {
        PrintWriter terminal = new PrintWriter(writer, true);
        status = Streamform.run(terminal, terminal, args);
      } finally {
        stream.flush();
        System.setOut(out);
        System.setErr(err);
      }
      String text = shown.toString().replace("\r", "").replace(ROOT.toString(), "\u2026");
      return new Terminal(status, List.of(text.split("\n", -1)));
    }
  }

  @Test
  void everyFileBlockIsTheFile() throws IOException {
    List<String> wrong = new ArrayList<>();
    for (Path page : pages()) {
      for (Block block : blocks(page)) {
        if (block.file() == null) {
          continue;
        }
        Path file = ROOT.resolve(block.file());
        String shown = String.join("\n", block.lines()) + "\n";
        if (!Files.isRegularFile(file)) {
          wrong.add(block.where() + ": shows " + block.file() + ", which does not exist");
        } else if (!Files.readString(file, StandardCharsets.UTF_8).equals(shown)) {
          wrong.add(block.where() + ": is not " + block.file() + " as it is in the repository");
        }
      }
    }
    assertTrue(wrong.isEmpty(), String.join("\n", wrong));
  }

  @Test
  void everyCitationOfTheContractNamesASectionThatExists() throws IOException {
    String contract = Files.readString(ROOT.resolve("docs/semantics.md"), StandardCharsets.UTF_8);
    Pattern citation = Pattern.compile("docs/semantics\\.md\\s+(?:\\*\\s+)?§(\\d+)(?:\\.(\\d+))?");
    List<String> wrong = new ArrayList<>();
    int cited = 0;
    List<Path> sources;
    try (Stream<Path> walk = Files.walk(ROOT)) {
      sources =
          walk.filter(p -> p.toString().endsWith(".java"))
              .filter(p -> !ROOT.relativize(p).toString().contains("target/"))
              .collect(Collectors.toList());
    }
    for (Path source : sources) {
      Matcher m = citation.matcher(Files.readString(source, StandardCharsets.UTF_8));
      while (m.find()) {
        cited++;
        String section = m.group(1);
        String rule = m.group(2);
        boolean exists =
            contract.contains("\n## §" + section + " ")
                && (rule == null || contract.contains("**" + section + "." + rule + "**"));
        if (!exists) {
          wrong.add(
              ROOT.relativize(source)
                  + ": cites "
                  + m.group()
                  + ", which docs/semantics.md does not have");
        }
      }
    }
    assertTrue(cited > 50, "found only " + cited + " citations of docs/semantics.md");
    assertTrue(wrong.isEmpty(), String.join("\n", wrong));
  }

  @Test
  void everyPackageSaysWhatItIsFor() throws IOException {
    List<String> missing;
    try (Stream<Path> walk = Files.walk(ROOT)) {
      missing =
          walk.filter(p -> p.toString().endsWith(".java"))
              .filter(p -> ROOT.relativize(p).toString().contains("src/main/java/"))
              .filter(p -> !ROOT.relativize(p).toString().contains("target/"))
              .filter(p -> !ROOT.relativize(p).startsWith("examples"))
              .map(Path::getParent)
              .distinct()
              .filter(dir -> !Files.isRegularFile(dir.resolve("package-info.java")))
              .map(dir -> ROOT.relativize(dir).toString())
              .sorted()
              .collect(Collectors.toList());
    }
    assertTrue(
        missing.isEmpty(),
        "packages without a package-info.java saying what they are for"
            + " (CONTRIBUTING.md):\n"
            + String.join("\n", missing));
  }

  /** A command line's words; a word naming a path in the repository becomes that path. */
  private static String[] arguments(String line) {
    List<String> words = new ArrayList<>();
    for (String word : line.trim().split("\\s+")) {
      boolean repositoryPath =
          !word.startsWith("-") && !word.startsWith("/") && Files.exists(ROOT.resolve(word));
      words.add(repositoryPath ? ROOT.resolve(word).toString() : word);
    }
    return words.toArray(new String[0]);
  }

  /**
   * Imports every snippet may use. A snippet that is not a whole compilation unit is compiled as
   * the body of a method of a class with these imports and {@link #CONTEXT} as fields (a snippet's
   * own declarations shadow them); {@code = ...;} in a snippet stands for a value and compiles as
   * {@code = null;}.
   */
  private static final String IMPORTS =
      String.join(
          "\n",
          "import dev.streamform.pipelines.*;",
          "import dev.streamform.pipelines.examples.*;",
          "import dev.streamform.pipelines.examples.ReceiptRisk.SpendShare;",
          "import dev.streamform.policies.schema.*;",
          "import dev.streamform.sink.*;",
          "import dev.streamform.sink.effects.*;",
          "import dev.streamform.teststreams.*;",
          "import dev.streamform.teststreams.fixture.*;",
          "import dev.streamform.transforms.*;",
          "import dev.streamform.transforms.changelog.*;",
          "import dev.streamform.transforms.clock.*;",
          "import dev.streamform.transforms.decisions.*;",
          "import dev.streamform.transforms.dedup.*;",
          "import dev.streamform.transforms.envelope.*;",
          "import dev.streamform.transforms.extraction.*;",
          "import dev.streamform.transforms.windows.*;",
          "import java.nio.file.*;",
          "import java.util.*;",
          "import org.apache.beam.runners.flink.FlinkPipelineOptions;",
          "import org.apache.beam.runners.flink.FlinkRunner;",
          "import org.apache.beam.sdk.Pipeline;",
          "import org.apache.beam.sdk.options.PipelineOptionsFactory;",
          "import org.apache.beam.sdk.schemas.Schema;",
          "import org.apache.beam.sdk.transforms.*;",
          "import org.apache.beam.sdk.transforms.windowing.*;",
          "import org.apache.beam.sdk.values.*;",
          "import org.joda.time.Duration;");

  /** The names snippets use without declaring them. */
  private static final String CONTEXT =
      String.join(
          "\n",
          "  Pipeline pipeline;",
          "  PCollection<SourceRecord> records;",
          "  PCollection<SourceRecord> payments;",
          "  ClockResult clocked;",
          "  ExtractionResult extracted;",
          "  WindowedResult windowed;",
          "  WindowedAggregate hourlyRevenue;");

  @Test
  void everyJavaSnippetCompiles() throws IOException {
    List<JavaFileObject> units = new ArrayList<>();
    List<Block> snippets = new ArrayList<>();
    for (Path page : pages()) {
      for (Block block : blocks(page)) {
        if (!block.info().equals("java")) {
          continue;
        }
        String name = "Snippet" + snippets.size();
        snippets.add(block);
        String code = String.join("\n", block.lines()).replaceAll("=\\s*\\.\\.\\.\\s*;", "= null;");
        boolean whole =
            code.contains("class ") && (code.contains("import ") || code.contains("package "));
        String source =
            whole
                ? code
                : IMPORTS
                    + "\n@SuppressWarnings(\"all\")\nclass "
                    + name
                    + " {\n"
                    + CONTEXT
                    + "\n  void snippet() throws Exception {\n"
                    + code
                    + "\n  }\n}\n";
        units.add(new Source(whole ? publicClassOf(code, name) : name, source, block));
      }
    }
    assertTrue(snippets.size() >= 5, "found only " + snippets.size() + " Java snippets");
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null)) {
      boolean ok =
          compiler
              .getTask(
                  null,
                  files,
                  diagnostics,
                  List.of(
                      "-classpath",
                      classpath,
                      "-d",
                      classes.toString(),
                      "-proc:none",
                      "-Xlint:none",
                      "-nowarn"),
                  null,
                  units)
              .call();
      List<String> errors = new ArrayList<>();
      for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
        if (d.getKind() == Diagnostic.Kind.ERROR) {
          Block block = ((Source) d.getSource()).block;
          errors.add(
              block.where()
                  + " (snippet line "
                  + snippetLine(d, (Source) d.getSource())
                  + "): "
                  + d.getMessage(Locale.ROOT));
        }
      }
      assertTrue(
          ok && errors.isEmpty(),
          "Java snippets that do not compile:\n" + String.join("\n", errors));
    }
  }

  private static long snippetLine(Diagnostic<? extends JavaFileObject> d, Source source) {
    return d.getLineNumber() - source.offset;
  }

  private static String publicClassOf(String code, String fallback) {
    Matcher m = Pattern.compile("public\\s+(?:final\\s+)?class\\s+(\\w+)").matcher(code);
    return m.find() ? m.group(1) : fallback;
  }

  /** A snippet as a compilation unit, remembering its block for error messages. */
  private static final class Source extends SimpleJavaFileObject {
    final String code;
    final Block block;
    final long offset;

    Source(String className, String code, Block block) {
      super(java.net.URI.create("string:///" + className + ".java"), Kind.SOURCE);
      this.code = code;
      this.block = block;
      int at = code.indexOf("void snippet() throws Exception {\n");
      this.offset = at < 0 ? 0 : code.substring(0, at).split("\n", -1).length;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return code;
    }
  }

  @Test
  void aPageShowsWhatWasPrintedLineForLineWithDotsForWhatItLeavesOut() {
    List<String> printed = List.of("a", "b", "c", "d");
    assertTrue(shows(List.of("a", "b", "c", "d"), printed));
    assertTrue(shows(List.of("a", "...", "d"), printed));
    assertTrue(shows(List.of("...", "b", "  ...", "d"), printed));
    assertTrue(shows(List.of("a", "...", "b", "c", "d"), printed), "... may stand for no line");
    assertFalse(shows(List.of("a", "c", "d"), printed), "a line left out without ...");
    assertFalse(shows(List.of("a", "b", "c"), printed), "the last line left out without ...");
    assertFalse(shows(List.of("a", "...", "c", "b"), printed), "lines out of order");
    assertFalse(shows(List.of("a", "...", "x"), printed), "a line not printed");
  }

  @Test
  void slugsAreGithubs() {
    assertEquals(
        "streamform-test-every-day-and-in-ci", slug("## `streamform test` every day and in CI"));
    assertEquals(
        "seeing-it-timelines-and-the-html-report",
        slug("# Seeing it: timelines and the HTML report"));
  }
}
