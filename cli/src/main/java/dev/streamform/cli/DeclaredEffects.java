package dev.streamform.cli;

import dev.streamform.policies.declarations.EffectDeclaration;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.sql.SqlModelException;
import dev.streamform.sink.effects.EffectProvider;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.sink.effects.WebhookProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A model's {@code effects:} as the sink and the dispatcher take them (docs/semantics.md §10). */
final class DeclaredEffects {
  private DeclaredEffects() {}

  /** The model's effect rules, in declaration order; empty when it declares none. */
  static List<EffectRule> rules(ModelDeclaration model) {
    List<EffectRule> rules = new ArrayList<>();
    for (EffectDeclaration e : model.effects()) {
      try {
        rules.add(EffectRule.of(model.name(), e.type(), e.subject(), e.when(),
            ProviderSpec.webhook(e.providerUrl(), e.idempotencyKeys(), e.receiptQueries())));
      } catch (SqlModelException x) {
        throw new IllegalStateException("streamform check accepted a condition that does not parse: " + e.when(), x);
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
