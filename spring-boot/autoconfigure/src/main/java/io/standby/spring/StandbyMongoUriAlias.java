package io.standby.spring;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.core.convert.converter.ConditionalConverter;
import org.springframework.core.convert.converter.Converter;
import org.springframework.core.env.Environment;

/**
 * Binds the deprecated scalar {@code standby.mongo=URI} as {@code standby.mongo.uri}. When {@code standby.mongo.uri} is
 * set it declines, and the binder then binds {@code standby.mongo.*} as usual, so that the new name wins wherever each
 * is set.
 */
final class StandbyMongoUriAlias implements Converter<String, StandbyProperties.Mongo>, ConditionalConverter {

    static final String OLD = StandbyProperties.PREFIX + ".mongo";
    static final String NEW = OLD + ".uri";

    private final Environment environment;

    StandbyMongoUriAlias(Environment environment) {
        this.environment = environment;
    }

    @Override
    public boolean matches(TypeDescriptor source, TypeDescriptor target) {
        return !isSet(environment, NEW);
    }

    @Override
    public StandbyProperties.Mongo convert(String uri) {
        StandbyProperties.Mongo mongo = new StandbyProperties.Mongo();
        mongo.setUri(uri);
        return mongo;
    }

    /** With Boot's relaxed names, as the properties bind: {@code STANDBY_MONGO_URI} sets {@code standby.mongo.uri}. */
    static boolean isSet(Environment environment, String name) {
        return Binder.get(environment).bind(name, String.class).isBound();
    }
}
