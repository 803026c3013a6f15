package systables

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// dolt_help, as Dolt 2.3.1 has it: a row per stored procedure Dolt
// documents, with its command line's help:
//
//	name               tinytext PRIMARY KEY  the procedure (dolt_add, ...)
//	type               enum('system_table','procedure','function','variable')
//	synopsis           longtext   its forms, one a line
//	short_description  longtext
//	long_description   longtext
//	arguments          json       an object: each option or argument, its
//	                              description
//
// The rows are Dolt's own, recorded from Dolt 2.3.1's dolt_help (help.json,
// the Dolt authors' text, Apache License 2.0), so that tools that read
// them find what they find in Dolt. Some document procedures verso does
// not have (dolt_backup, dolt_clone, dolt_fetch, dolt_pull, dolt_push,
// dolt_rebase, dolt_remote): calling those fails. The table is read-only.

const HelpName = "dolt_help"

//go:embed help.json
var helpJSON []byte

var helpSchema = sql.Schema{
	{Name: "name", Type: types.TinyText, PrimaryKey: true, Source: HelpName},
	{Name: "type", Type: types.MustCreateEnumType([]string{"system_table", "procedure", "function", "variable"}, sql.Collation_Default), Source: HelpName},
	{Name: "synopsis", Type: types.LongText, Source: HelpName},
	{Name: "short_description", Type: types.LongText, Source: HelpName},
	{Name: "long_description", Type: types.LongText, Source: HelpName},
	{Name: "arguments", Type: types.JSON, Source: HelpName},
}

// helpEntry is one row of help.json.
type helpEntry struct {
	Name             string         `json:"name"`
	Type             string         `json:"type"`
	Synopsis         string         `json:"synopsis"`
	ShortDescription string         `json:"short_description"`
	LongDescription  string         `json:"long_description"`
	Arguments        map[string]any `json:"arguments"`
}

// helpRows returns dolt_help's rows, in the order of their names.
func helpRows(*sql.Context) ([]sql.Row, error) {
	var entries []helpEntry
	if err := json.Unmarshal(helpJSON, &entries); err != nil {
		return nil, fmt.Errorf("systables: help.json: %w", err)
	}
	rows := make([]sql.Row, len(entries))
	for i, e := range entries {
		// An enum's value is its member's number.
		typ := helpSchema[1].Type.(sql.EnumType).IndexOf(e.Type)
		rows[i] = sql.Row{e.Name, uint16(typ), e.Synopsis, e.ShortDescription, e.LongDescription, types.JSONDocument{Val: e.Arguments}}
	}
	return rows, nil
}
