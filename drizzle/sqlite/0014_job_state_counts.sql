CREATE TABLE `job_state_counts` (
	`state` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL
);--> statement-breakpoint
-- Written by hand below (drizzle-kit models no triggers): the counts are derived from jobs, filled once here
-- from the rows already there, then kept by the triggers in the transaction of every write to jobs.
INSERT INTO `job_state_counts` (`state`, `count`) SELECT `state`, count(*) FROM `jobs` GROUP BY `state`;--> statement-breakpoint
CREATE TRIGGER `jobs_counted_on_insert` AFTER INSERT ON `jobs` BEGIN
	INSERT INTO `job_state_counts` (`state`, `count`) VALUES (NEW.`state`, 1)
		ON CONFLICT (`state`) DO UPDATE SET `count` = `count` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `jobs_counted_on_delete` AFTER DELETE ON `jobs` BEGIN
	UPDATE `job_state_counts` SET `count` = `count` - 1 WHERE `state` = OLD.`state`;
END;--> statement-breakpoint
CREATE TRIGGER `jobs_counted_on_state_change` AFTER UPDATE OF `state` ON `jobs` WHEN OLD.`state` IS NOT NEW.`state` BEGIN
	UPDATE `job_state_counts` SET `count` = `count` - 1 WHERE `state` = OLD.`state`;
	INSERT INTO `job_state_counts` (`state`, `count`) VALUES (NEW.`state`, 1)
		ON CONFLICT (`state`) DO UPDATE SET `count` = `count` + 1;
END;
