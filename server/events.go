package server

import (
	"context"
	"fmt"
	"strings"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/eventscheduler"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/sqlserver"
)

// Scheduled events (CREATE EVENT) run on the server as MySQL's and Dolt's
// do, by the engine's event scheduler, while @@event_scheduler is ON (its
// default; the config file's behavior.event_scheduler sets it at start):
// each run is a session of its own, as the event's definer, on the
// database's default branch, whose transaction commits when the body
// ends. OFF and DISABLED keep the events without running them. The
// scheduler wakes every EventsPeriod to run the events that are due (and
// to see events that dolt_reset, a checkout or a merge brought).

// startEvents starts the engine's event scheduler over emb's sessions.
func startEvents(e *sqle.Engine, emb *sqlserver.Embedded, period int) error {
	status := eventscheduler.SchedulerOn
	if _, v, ok := sql.SystemVariables.GetGlobal("event_scheduler"); ok {
		switch strings.ToUpper(fmt.Sprint(v)) {
		case "OFF", "0":
			status = eventscheduler.SchedulerOff
		case "DISABLED":
			status = eventscheduler.SchedulerDisabled
		}
	}
	newCtx := func() (*sql.Context, error) {
		s := emb.NewSession(sql.NewBaseSession())
		return sql.NewContext(context.Background(), sql.WithSession(s)), nil
	}
	return e.InitializeEventScheduler(newCtx, status, period)
}
