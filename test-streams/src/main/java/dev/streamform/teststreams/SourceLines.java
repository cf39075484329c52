package dev.streamform.teststreams;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The lines of a module's Java sources that match a pattern, for tests that guard what a module's
 * code may not do (branch on a model's kind by its booleans, issue 30).
 */
public final class SourceLines {
  private SourceLines() {}

  /** Each line of the {@code .java} files under {@code root} matching {@code pattern}. */
  public static List<String> matching(Path root, Pattern pattern) throws IOException {
    if (!Files.isDirectory(root)) {
      throw new IllegalArgumentException("no sources at " + root.toAbsolutePath());
    }
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          if (pattern.matcher(lines.get(i)).find()) {
            found.add(f + ":" + (i + 1) + ": " + lines.get(i).trim());
          }
        }
      }
    }
    return found;
  }
}
