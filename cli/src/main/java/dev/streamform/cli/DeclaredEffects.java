package dev.streamform.cli;

import dev.streamform.policies.declarations.EffectDeclaration;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.sql.SqlModelException;
import dev.streamform.sink.effects.EffectProvider;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.checkerframework.checker.nullness.qual.Nullable;

/** A model's {@code effects:} as the sink and the dispatcher take them (docs/semantics.md §10). */
final class DeclaredEffects {
  private DeclaredEffects() {}

  /**
   * The model's effect rules, in declaration order; empty when it declares none. Without the
   * providers' credentials: for the sink, which prepares effects and never delivers them.
   */
  static List<EffectRule> rules(ModelDeclaration model) {
    return rules(model, null);
  }

  /**
   * The model's effect rules with where their providers' credentials come from, a credential file
   * resolved against {@code projectDir} (for the dispatcher).
   */
  static List<EffectRule> rules(ModelDeclaration model, @Nullable Path projectDir) {
    List<EffectRule> rules = new ArrayList<>();
    for (EffectDeclaration e : model.effects()) {
      ProviderSpec spec =
          ProviderSpec.webhook(e.providerUrl(), e.idempotencyKeys(), e.receiptQueries());
      if (projectDir != null && e.authorizationEnv().isPresent()) {
        spec = spec.withAuthorizationFromEnv(e.authorizationEnv().get());
      } else if (projectDir != null && e.authorizationFile().isPresent()) {
        spec =
            spec.withAuthorizationFromFile(
                projectDir
                    .resolve(e.authorizationFile().get())
                    .toAbsolutePath()
                    .normalize()
                    .toString());
      }
      try {
        EffectRule rule = EffectRule.of(model.name(), e.type(), e.subject(), e.when(), spec);
        rules.add(e.incremental() ? rule.incrementally() : rule);
      } catch (SqlModelException x) {
        throw new IllegalStateException(
            "streamform check accepted a condition that does not parse: " + e.when(), x);
      }
    }
    return rules;
  }

  /** A webhook per effect type, each waiting at most {@code timeout} for an answer. */
  static Map<String, EffectProvider> providers(List<EffectRule> rules, Duration timeout) {
    Map<String, EffectProvider> providers = new LinkedHashMap<>();
    for (EffectRule rule : rules) {
      providers.put(rule.type(), new WebhookProvider(rule.provider(), timeout));
    }
    return providers;
  }
}
