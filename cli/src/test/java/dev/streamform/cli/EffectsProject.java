package dev.streamform.cli;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.LocalProviderServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The tests' hourly revenue project with a reward rule ({@code revenue >= 1000}) pointing at a
 * local provider.
 */
final class EffectsProject {
  static final Path HOURLY = Path.of("../revision-sink/src/test/resources/hourly-revenue");

  private EffectsProject() {}

  /**
   * A copy of the project in {@code dir}, its reward delivered to {@code provider}; returns its
   * folder.
   */
  static Path copy(Path dir, LocalProviderServer provider) throws IOException {
    return copy(
        dir, "{kind: webhook, url: \"" + provider.url() + "\", idempotency: key, receipts: true}");
  }

  /**
   * A copy of the project in {@code dir}, its reward declared with {@code providerYaml} (a flow
   * map).
   */
  static Path copy(Path dir, String providerYaml) throws IOException {
    Path project = dir.resolve("hourly-revenue");
    try (Stream<Path> files = Files.walk(HOURLY)) {
      for (Path f : files.toList()) {
        Path to = project.resolve(HOURLY.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    Files.writeString(
        project.resolve("streamform.yml"),
        Files.readString(project.resolve("streamform.yml"))
            + "    effects:\n"
            + "      - type: reward\n"
            + "        subject: merchant_id\n"
            + "        when: \"revenue >= 1000\"\n"
            + "        provider: "
            + providerYaml
            + "\n");
    return project;
  }

  /** The project's declared rules, as {@code streamform run --jdbc-url} gives them to the sink. */
  static List<EffectRule> rules(Path project) throws Exception {
    return DeclaredEffects.rules(DeclaredModel.of(Project.load(project), "hourly_revenue").model());
  }
}
