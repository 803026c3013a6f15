package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/verso-db/verso/internal/bytesize"
	"github.com/verso-db/verso/remotes"
)

// The progress of a transfer (clone, fetch, pull, push) on a terminal.
//
// A transfer does not know its size ahead (it walks the history until it
// meets chunks the other side has), so the display is
// github.com/schollz/progressbar's spinner (the bar table import and gc
// already draw) with the bytes and chunks moved so far and the rate:
//
//	⠙ receiving 1204 chunks (3.2 MiB, 1.1 MiB/s) [2s]
//
// and, once done, one line in its place:
//
//	received 1204 chunks, 3.2 MiB in 2.9s (1.1 MiB/s)
//
// The engine reports after each level of the history it reads, so a
// ticker keeps the spinner and the rate moving in between. Bytes are the
// chunks' uncompressed sizes. Nothing is drawn when stderr is not a
// terminal (transferProgress returns nil).

// transferDisplay draws one transfer.
type transferDisplay struct {
	w      io.Writer
	verb   string // "receiving" or "sending"
	done   string // "received" or "sent"
	bar    *progressbar.ProgressBar
	start  time.Time
	stop   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	last   remotes.Progress
	closed bool
}

// transferProgress returns the display of a transfer on stderr, or nil
// when stderr is not a terminal. sending is true for a push.
func transferProgress(stderr io.Writer, sending bool) *transferDisplay {
	if !isTerminal(stderr) {
		return nil
	}
	return newTransferDisplay(stderr, sending, 100*time.Millisecond)
}

// newTransferDisplay starts a display on w, redrawn every tick.
func newTransferDisplay(w io.Writer, sending bool, tick time.Duration) *transferDisplay {
	d := &transferDisplay{w: w, verb: "receiving", done: "received", start: time.Now(), stop: make(chan struct{})}
	if sending {
		d.verb, d.done = "sending", "sent"
	}
	d.bar = progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(d.describe(0)),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionUseIECUnits(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionThrottle(tick/2),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionClearOnFinish())
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-d.stop:
				return
			case <-t.C:
				d.bar.Add64(0)
			}
		}
	}()
	return d
}

func (d *transferDisplay) describe(chunks int) string {
	return fmt.Sprintf("%s %d chunks", d.verb, chunks)
}

// update is the engine's Progress callback. A nil display ignores it.
func (d *transferDisplay) update(p remotes.Progress) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	d.last = p
	d.bar.Describe(d.describe(p.Chunks))
	d.bar.Set64(p.Bytes)
}

// callback returns update as the engine's option (nil without a display).
func (d *transferDisplay) callback() func(remotes.Progress) {
	if d == nil {
		return nil
	}
	return d.update
}

// finish clears the spinner and, if the transfer succeeded (ok) and
// moved anything, writes what it moved. It may be called more than once; a nil display does
// nothing.
func (d *transferDisplay) finish(ok bool) {
	if d == nil {
		return
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.closed = true
	d.mu.Unlock()
	close(d.stop)
	d.wg.Wait()
	d.bar.Finish()
	if !ok || d.last.Chunks == 0 {
		return
	}
	took := time.Since(d.start)
	fmt.Fprintf(d.w, "%s %d chunks, %s in %s (%s/s)\n", d.done, d.last.Chunks,
		bytesize.Format(uint64(d.last.Bytes)), took.Round(100*time.Millisecond), bytesize.Format(rate(d.last.Bytes, took)))
}

// rate is bytes per second over took.
func rate(bytes int64, took time.Duration) uint64 {
	if took <= 0 {
		return 0
	}
	return uint64(float64(bytes) / took.Seconds())
}
