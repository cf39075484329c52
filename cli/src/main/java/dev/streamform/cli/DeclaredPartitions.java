package dev.streamform.cli;

import dev.streamform.policies.declarations.SourceDeclaration;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * A Kafka source's declared {@code partitions:} sizes the topics a command creates; a {@code
 * --partitions} that differs from it is refused, not ignored (docs/decisions/0089, as 0087).
 */
final class DeclaredPartitions {
  private DeclaredPartitions() {}

  /**
   * Refuses {@code --partitions} below 1 (exit 2): called first, before the broker is contacted.
   */
  static void refuseBelowOne(CommandSpec spec, int partitions) {
    if (partitions < 1) {
      throw new ParameterException(
          spec.commandLine(),
          "--partitions "
              + partitions
              + ": a topic has at least 1 partition; give --partitions 1 or more, or leave it out");
    }
  }

  /**
   * The count a command creates {@code source}'s topics with: the declared one, else {@code
   * partitions} ({@code --partitions} or its default).
   *
   * @param creates what the count sizes, as the message says it: "the topics a run creates"
   * @param pronoun "them" or "it", for {@code creates}
   * @throws ParameterException when {@code --partitions} was given and differs from the declared
   *     count (exit 2, naming the file and both fixes)
   */
  static int sizing(
      CommandSpec spec,
      int partitions,
      Path project,
      SourceDeclaration source,
      String creates,
      String pronoun) {
    Optional<Integer> declared = source.partitions();
    if (declared.isPresent()
        && spec.commandLine().getParseResult().hasMatchedOption("--partitions")
        && partitions != declared.get()) {
      throw new ParameterException(
          spec.commandLine(),
          "--partitions "
              + partitions
              + " sizes "
              + creates
              + ", and "
              + project.resolve("sources.yml")
              + " declares partitions: "
              + declared.get()
              + " for source '"
              + source.name()
              + "', which sizes "
              + pronoun
              + ": leave out --partitions, or give --partitions "
              + declared.get());
    }
    return declared.orElse(partitions);
  }
}
