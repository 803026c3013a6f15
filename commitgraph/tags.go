package commitgraph

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/verso-db/verso/chunks"
)

// CreateTag tags the commit at with name. It returns ErrTagExists if the
// name is taken. A zero meta.Time means now.
func (db *DB) CreateTag(ctx context.Context, name string, at chunks.Address, meta TagMeta) (*Tag, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if _, err := db.ReadCommit(ctx, at); err != nil {
		return nil, err
	}
	if meta.Time.IsZero() {
		meta.Time = time.Now()
	}
	t := &Tag{Name: name, Commit: at, Tagger: meta.Tagger, Time: time.UnixMilli(meta.Time.UnixMilli()).UTC(), Message: meta.Message}
	b, err := encodeTag(t)
	if err != nil {
		return nil, err
	}
	if t.Addr, err = db.cs.Put(ctx, b); err != nil {
		return nil, err
	}
	err = db.UpdateRefs(ctx, func(tx *RefTx) error {
		if _, ok, err := tx.Get(ctx, tagRef(name)); err != nil || ok {
			if ok {
				return fmt.Errorf("%w: %q", ErrTagExists, name)
			}
			return err
		}
		tx.Set(tagRef(name), t.Addr)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// DeleteTag deletes the tag name, or returns ErrTagNotFound.
func (db *DB) DeleteTag(ctx context.Context, name string) error {
	return db.UpdateRefs(ctx, func(tx *RefTx) error {
		if _, ok, err := tx.Get(ctx, tagRef(name)); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%w: %q", ErrTagNotFound, name)
			}
			return err
		}
		tx.Delete(tagRef(name))
		return nil
	})
}

// Tag returns the tag name, or an error wrapping ErrTagNotFound.
func (db *DB) Tag(ctx context.Context, name string) (*Tag, error) {
	a, ok, err := db.ref(ctx, tagRef(name))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrTagNotFound, name)
	}
	return db.readTag(ctx, name, a)
}

func (db *DB) readTag(ctx context.Context, name string, a chunks.Address) (*Tag, error) {
	b, err := db.cs.Get(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("commitgraph: tag %q: %w", name, err)
	}
	t, err := DecodeTag(a, b)
	if err != nil {
		return nil, fmt.Errorf("commitgraph: tag %q: %w", name, err)
	}
	t.Name = name
	return t, nil
}

// Tags returns every tag, sorted by name.
func (db *DB) Tags(ctx context.Context) ([]*Tag, error) {
	refs, err := db.Refs(ctx, tagPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]*Tag, 0, len(refs))
	for _, r := range refs {
		t, err := db.readTag(ctx, strings.TrimPrefix(r.Name, tagPrefix), r.Addr)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
