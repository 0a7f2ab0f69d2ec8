package io.standby.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Marks the {@code MongoClient} bean the Standby node uses when the application has several, as
 * {@code @FlywayDataSource} marks Flyway's data source: put it beside {@code @Bean}. Without it, several clients fail
 * the start, since the node cannot know which database holds its slots.
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface StandbyMongoClient {}
