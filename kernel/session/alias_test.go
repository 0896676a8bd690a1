package session

import (
	"reflect"

	"github.com/traefik/yaegi/interp"
)

type interp_Exports = interp.Exports

var reflectValueOf = reflect.ValueOf
